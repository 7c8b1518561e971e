/**
 * The EXIF orientation of a JPEG (1–8, TIFF tag 0x0112 in the APP1 "Exif" segment) and the pixel
 * transform that shows it upright. A re-encoded JPEG carries no EXIF, so a shrunk photo must be
 * turned by its pixels, or it would arrive on its side.
 */
import type { Pixels } from "./downscale.ts"

const u16 = (bytes: Uint8Array, at: number, little: boolean): number =>
  little ? (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8) : ((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0)
const u32 = (bytes: Uint8Array, at: number, little: boolean): number =>
  little ? u16(bytes, at, true) + u16(bytes, at + 2, true) * 0x10000 : u16(bytes, at, false) * 0x10000 + u16(bytes, at + 2, false)

const isExif = (bytes: Uint8Array, at: number): boolean =>
  [0x45, 0x78, 0x69, 0x66, 0x00, 0x00].every((byte, index) => bytes[at + index] === byte)

/** 1 (as stored) when the file says nothing, or says it in a way this does not read. */
export const jpegOrientation = (bytes: Uint8Array): number => {
  let at = 2
  while (at + 4 <= bytes.length && bytes[at] === 0xff) {
    const marker = bytes[at + 1] ?? 0
    if (marker === 0xda || marker === 0xd9) return 1
    const length = u16(bytes, at + 2, false)
    if (marker === 0xe1 && isExif(bytes, at + 4)) {
      const tiff = at + 10
      const little = bytes[tiff] === 0x49
      const ifd = tiff + u32(bytes, tiff + 4, little)
      const entries = u16(bytes, ifd, little)
      for (let entry = 0; entry < entries; entry++) {
        const field = ifd + 2 + entry * 12
        if (field + 12 > bytes.length) return 1
        if (u16(bytes, field, little) === 0x0112) {
          const value = u16(bytes, field + 8, little)
          return value >= 1 && value <= 8 ? value : 1
        }
      }
      return 1
    }
    at += 2 + length
  }
  return 1
}

/**
 * For each orientation, the stored pixel shown at (x, y) as sx = ax·x + bx·y + cx and
 * sy = ay·x + by·y + cy, with c in units of (w − 1, h − 1).
 */
const transforms: Record<number, readonly [number, number, number, number, number, number]> = {
  2: [-1, 0, 1, 0, 1, 0],
  3: [-1, 0, 1, 0, -1, 1],
  4: [1, 0, 0, 0, -1, 1],
  5: [0, 1, 0, 1, 0, 0],
  6: [0, 1, 0, -1, 0, 1],
  7: [0, -1, 1, -1, 0, 1],
  8: [0, -1, 1, 1, 0, 0]
}

/** `pixels` turned and mirrored so that they show upright (EXIF orientation `orientation`). */
export const applyOrientation = (pixels: Pixels, orientation: number): Pixels => {
  const transform = transforms[orientation]
  if (transform === undefined) return pixels
  const [ax, bx, cx, ay, by, cy] = transform
  const { width: w, height: h, data: src } = pixels
  const width = orientation >= 5 ? h : w
  const height = orientation >= 5 ? w : h
  const data = new Uint8Array(src.length)
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const sx = ax * x + bx * y + cx * (w - 1)
      const sy = ay * x + by * y + cy * (h - 1)
      const from = (sy * w + sx) * 4
      const to = (y * width + x) * 4
      data[to] = src[from] ?? 0
      data[to + 1] = src[from + 1] ?? 0
      data[to + 2] = src[from + 2] ?? 0
      data[to + 3] = src[from + 3] ?? 0
    }
  }
  return { width, height, data }
}
