/**
 * Decoding, shrinking and re-encoding PNG and JPEG images in pure JavaScript (pngjs, jpeg-js: no
 * native addon, so the compiled binary stays one standalone file; docs/images.md says why these).
 * Loaded only when an image is over a model's limits (src/media/image-fit.ts imports it lazily).
 */
import * as jpeg from "jpeg-js"
import { PNG } from "pngjs"
import type { ImageSize } from "./image-size.ts"
import { applyOrientation, jpegOrientation } from "./orientation.ts"

export interface Pixels extends ImageSize {
  /** RGBA, 8 bits per channel, row after row. */
  readonly data: Uint8Array
}

export type Encodable = "image/png" | "image/jpeg"

/** Beyond this a decode would take hundreds of MiB of memory: such an image is refused, not decoded. */
export const maxDecodePixels = 100_000_000

/** RGBA pixels as the image is meant to be seen (a JPEG's EXIF orientation applied: the re-encoded file has none). */
export const decode = (bytes: Uint8Array, mime: Encodable): Pixels => {
  if (mime === "image/png") {
    const png = PNG.sync.read(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))
    return { width: png.width, height: png.height, data: png.data }
  }
  const image = jpeg.decode(bytes, { useTArray: true, formatAsRGBA: true, maxResolutionInMP: maxDecodePixels / 1_000_000, maxMemoryUsageInMB: 1024 })
  return applyOrientation({ width: image.width, height: image.height, data: image.data }, jpegOrientation(bytes))
}

/**
 * For each destination index along one axis: the first source index it covers and the weight of
 * each source index it covers (how much of that source pixel falls inside it).
 */
interface Spans {
  readonly first: Int32Array
  readonly count: Int32Array
  readonly weights: Float32Array
  readonly stride: number
}

const spans = (from: number, to: number): Spans => {
  const scale = from / to
  const stride = Math.ceil(scale) + 1
  const first = new Int32Array(to)
  const count = new Int32Array(to)
  const weights = new Float32Array(to * stride)
  for (let i = 0; i < to; i++) {
    const start = i * scale
    const end = Math.min(from, (i + 1) * scale)
    const j0 = Math.floor(start)
    first[i] = j0
    let n = 0
    for (let j = j0; j < end && n < stride; j++, n++) weights[i * stride + n] = (Math.min(end, j + 1) - Math.max(start, j)) / scale
    count[i] = n
  }
  return { first, count, weights, stride }
}

/**
 * Area-average resampling (each destination pixel is the mean of the source pixels it covers),
 * in two separable passes. Colours are weighted by alpha so transparent pixels lend no colour to
 * their neighbours.
 */
export const resize = (source: Pixels, size: ImageSize): Pixels => {
  const { width: sw, height: sh, data: src } = source
  const { width: dw, height: dh } = size
  const across = spans(sw, dw)
  const { first: xFirst, count: xCount, weights: xWeights, stride: xStride } = across
  // Horizontal pass: premultiplied, as floats, dw × sh.
  const middle = new Float32Array(dw * sh * 4)
  for (let y = 0; y < sh; y++) {
    const row = y * sw * 4
    let out = y * dw * 4
    for (let x = 0; x < dw; x++, out += 4) {
      let r = 0
      let g = 0
      let b = 0
      let a = 0
      let at = row + (xFirst[x] ?? 0) * 4
      const n = xCount[x] ?? 0
      const base = x * xStride
      for (let k = 0; k < n; k++, at += 4) {
        const alpha = (src[at + 3] ?? 0) * (xWeights[base + k] ?? 0)
        r += (src[at] ?? 0) * alpha
        g += (src[at + 1] ?? 0) * alpha
        b += (src[at + 2] ?? 0) * alpha
        a += alpha
      }
      middle[out] = r
      middle[out + 1] = g
      middle[out + 2] = b
      middle[out + 3] = a
    }
  }
  const { first: yFirst, count: yCount, weights: yWeights, stride: yStride } = spans(sh, dh)
  const data = new Uint8Array(dw * dh * 4)
  const rowSize = dw * 4
  for (let y = 0; y < dh; y++) {
    const n = yCount[y] ?? 0
    const base = y * yStride
    const top = (yFirst[y] ?? 0) * rowSize
    let out = y * rowSize
    for (let x = 0; x < rowSize; x += 4, out += 4) {
      let r = 0
      let g = 0
      let b = 0
      let a = 0
      let at = top + x
      for (let k = 0; k < n; k++, at += rowSize) {
        const w = yWeights[base + k] ?? 0
        r += (middle[at] ?? 0) * w
        g += (middle[at + 1] ?? 0) * w
        b += (middle[at + 2] ?? 0) * w
        a += (middle[at + 3] ?? 0) * w
      }
      if (a > 0) {
        data[out] = r / a + 0.5
        data[out + 1] = g / a + 0.5
        data[out + 2] = b / a + 0.5
      }
      data[out + 3] = a + 0.5
    }
  }
  return { width: dw, height: dh, data }
}

const hasTransparency = (pixels: Pixels): boolean => {
  for (let at = 3; at < pixels.data.length; at += 4) if ((pixels.data[at] ?? 255) !== 255) return true
  return false
}

/** JPEG has no alpha: transparent pixels are shown over white, as most viewers show them. */
const overWhite = (pixels: Pixels): Pixels => {
  if (!hasTransparency(pixels)) return pixels
  const data = new Uint8Array(pixels.data.length)
  for (let at = 0; at < data.length; at += 4) {
    const alpha = (pixels.data[at + 3] ?? 255) / 255
    for (let c = 0; c < 3; c++) data[at + c] = Math.round((pixels.data[at + c] ?? 0) * alpha + 255 * (1 - alpha))
    data[at + 3] = 255
  }
  return { ...pixels, data }
}

/**
 * The pixels as a new file, with nothing of the original's metadata: jpeg-js would write an
 * object's `comments` and `exifBuffer` as COM and APP1 segments, so it gets the pixels alone (its
 * only other segment is a JFIF header without a thumbnail); pngjs writes IHDR, IDAT and IEND (and
 * gAMA only when asked). test/unit/media/metadata.test.ts holds both to it.
 */
export const encode = (pixels: Pixels, mime: Encodable, quality = 85): Uint8Array => {
  if (mime === "image/jpeg") {
    const { width, height, data } = overWhite(pixels)
    return new Uint8Array(jpeg.encode({ width, height, data }, quality).data)
  }
  const png = new PNG({ width: pixels.width, height: pixels.height })
  png.data = Buffer.from(pixels.data.buffer, pixels.data.byteOffset, pixels.data.byteLength)
  // An opaque image is written as RGB: a quarter fewer bytes before compression.
  const opaque = !hasTransparency(pixels)
  return new Uint8Array(PNG.sync.write(png, { colorType: opaque ? 2 : 6, inputHasAlpha: true }))
}
