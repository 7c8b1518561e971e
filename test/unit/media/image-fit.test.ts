import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as jpeg from "jpeg-js"
import { describe, expect, it } from "vitest"
import { fitImage, type FitTarget } from "../../../src/media/image-fit.ts"
import { shrinkToSide } from "../../../src/media/image-limits.ts"
import { imageSize } from "../../../src/media/image-size.ts"
import { sniffImage } from "../../../src/media/image-type.ts"
import { decode } from "../../../src/media/downscale.ts"
import { makePng, tinyGif, webpHeader } from "../../support/images.ts"

/** A real baseline JPEG of `width`×`height` with a gradient (so resampling has something to average). */
const makeJpeg = (width: number, height: number): Uint8Array => {
  const data = new Uint8Array(width * height * 4)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const at = (y * width + x) * 4
      data[at] = (x * 255) / width
      data[at + 1] = (y * 255) / height
      data[at + 2] = 128
      data[at + 3] = 255
    }
  return new Uint8Array(jpeg.encode({ data, width, height }, 90).data)
}

const target = (maxPixelsPerSide: number | undefined, maxBytes = 20 * 1024 * 1024): FitTarget => ({ model: "anthropic/claude-test", limits: { maxBytes, maxPixelsPerSide } })

const fit = (bytes: Uint8Array, to: FitTarget, source = "shot.png") => Effect.runPromise(Effect.either(fitImage(bytes, source, to)))

const fitted = async (bytes: Uint8Array, to: FitTarget) => {
  const result = await fit(bytes, to)
  if (Either.isLeft(result)) throw new Error(`refused: ${result.left.message}`)
  return result.right
}

describe("fitting an image to a model's limits", () => {
  it("keeps an image within the limits byte for byte, without decoding it", async () => {
    const png = makePng(300, 200)
    const result = await fitted(png, target(1568))
    expect(result.bytes).toBe(png)
    expect(result.resizedFrom).toBeUndefined()
    expect(result.size).toEqual({ width: 300, height: 200 })
    // A GIF within the limits passes too: only one over them needs a codec.
    expect((await fitted(tinyGif(), target(1568))).bytes).toEqual(tinyGif())
  })

  it("shrinks a PNG over the pixel limit to a valid PNG of the limit, aspect ratio kept", async () => {
    const result = await fitted(makePng(400, 300), target(100))
    expect(result.mime).toBe("image/png")
    expect(sniffImage(result.bytes)).toBe("image/png")
    expect(imageSize(result.bytes, "image/png")).toEqual({ width: 100, height: 75 })
    expect(result.size).toEqual({ width: 100, height: 75 })
    expect(result.resizedFrom).toEqual({ width: 400, height: 300 })
    expect(decode(result.bytes, "image/png").data.length).toBe(100 * 75 * 4)
  })

  it("shrinks a JPEG over the pixel limit to a valid JPEG, portrait too", async () => {
    const result = await fitted(makeJpeg(300, 1000), target(250))
    expect(result.mime).toBe("image/jpeg")
    expect(sniffImage(result.bytes)).toBe("image/jpeg")
    expect(imageSize(result.bytes, "image/jpeg")).toEqual({ width: 75, height: 250 })
    const pixels = decode(result.bytes, "image/jpeg")
    expect([pixels.width, pixels.height]).toEqual([75, 250])
    // The gradient survives resampling: left is dark red, right is bright red.
    expect(pixels.data[0]).toBeLessThan(40)
    expect(pixels.data[(74 + 0) * 4]).toBeGreaterThan(200)
  })

  it("brings a PNG over the byte limit under it (as JPEG once PNG cannot), within the pixel limit", async () => {
    const noisy = makePng(600, 400, { noise: true })
    expect(noisy.length).toBeGreaterThan(900_000)
    const result = await fitted(noisy, target(500, 200_000))
    expect(result.bytes.length).toBeLessThanOrEqual(200_000)
    expect(result.mime).toBe("image/jpeg")
    const size = imageSize(result.bytes, "image/jpeg")
    expect(size?.width).toBeLessThanOrEqual(500)
    expect((size?.width ?? 0) / (size?.height ?? 1)).toBeCloseTo(1.5, 1)
  })

  it("keeps a PNG as PNG when it fits the byte limit after the pixel fit", async () => {
    const result = await fitted(makePng(1000, 1000), target(200, 100_000))
    expect(result.mime).toBe("image/png")
    expect(result.bytes.length).toBeLessThanOrEqual(100_000)
  })

  it("refuses a GIF or WebP over the limits, naming the image, the model and the limit, and what to do", async () => {
    const gif = await fit(tinyGif(), target(1568, 10), "docs/anim.gif")
    expect(Either.isLeft(gif) && gif.left.message).toBe(
      "docs/anim.gif (GIF, 1×1 px, 43 bytes) is over what anthropic/claude-test takes (1568 px per side and 10 bytes); Crystal can only shrink PNG and JPEG images: convert it to PNG or JPEG"
    )
    const webp = await fit(webpHeader(9000, 10), target(8000), "big.webp")
    expect(Either.isLeft(webp) && webp.left.message).toMatch(/^big\.webp \(WebP, 9000×10 px, 30 bytes\) is over what anthropic\/claude-test takes \(8000 px per side and 20 MiB\); .*convert it to PNG or JPEG$/)
  })

  it("refuses an image that cannot be made small enough, and one that cannot be decoded", async () => {
    const tiny = await fit(makePng(600, 600, { noise: true }), target(undefined, 2000))
    expect(Either.isLeft(tiny) && tiny.left.message).toMatch(/^shot\.png \(PNG, 600×600 px, .*\) is over what anthropic\/claude-test takes \(2 KiB\); even shrunk to 256 px as JPEG it does not fit: use a smaller image$/)
    const damaged = Uint8Array.from(makePng(400, 300)).slice(0, 200)
    const broken = await fit(damaged, target(100))
    expect(Either.isLeft(broken) && broken.left.message).toMatch(/cannot be decoded to shrink it/)
  })

  it("computes the shrunk size from the longer side", () => {
    expect(shrinkToSide({ width: 4000, height: 3000 }, 1568)).toEqual({ width: 1568, height: 1176 })
    expect(shrinkToSide({ width: 3000, height: 4000 }, 1568)).toEqual({ width: 1176, height: 1568 })
    expect(shrinkToSide({ width: 10000, height: 3 }, 100)).toEqual({ width: 100, height: 1 })
    expect(shrinkToSide({ width: 50, height: 40 }, 100)).toEqual({ width: 50, height: 40 })
  })
})

/** `jpegBytes` with an APP1 Exif segment saying `orientation`, right after SOI (big-endian TIFF). */
const withOrientation = (jpegBytes: Uint8Array, orientation: number): Uint8Array => {
  const tiff = [0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, orientation, 0, 0, 0, 0, 0, 0]
  const payload = [0x45, 0x78, 0x69, 0x66, 0, 0, ...tiff]
  const length = payload.length + 2
  return Uint8Array.from([0xff, 0xd8, 0xff, 0xe1, length >> 8, length & 0xff, ...payload, ...jpegBytes.subarray(2)])
}

/** Left half red, right half blue. */
const halves = (width: number, height: number): Uint8Array => {
  const data = new Uint8Array(width * height * 4)
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) data.set(x < width / 2 ? [255, 0, 0, 255] : [0, 0, 255, 255], (y * width + x) * 4)
  return new Uint8Array(jpeg.encode({ data, width, height }, 95).data)
}

describe("a shrunk JPEG with an EXIF orientation", () => {
  it("is turned upright by its pixels, since the re-encoded file carries no EXIF", async () => {
    // Stored 400×100 (red left, blue right), shown rotated 90° clockwise: 100×400, red on top.
    const result = await fitImage(withOrientation(halves(400, 100), 6), "phone.jpg", target(200)).pipe(Effect.runPromise)
    expect(result.size).toEqual({ width: 50, height: 200 })
    expect(result.resizedFrom).toEqual({ width: 100, height: 400 })
    const pixels = decode(result.bytes, "image/jpeg")
    const at = (x: number, y: number) => [...pixels.data.subarray((y * 50 + x) * 4, (y * 50 + x) * 4 + 3)]
    expect(at(25, 10)[0]).toBeGreaterThan(200)
    expect(at(25, 10)[2]).toBeLessThan(60)
    expect(at(25, 190)[2]).toBeGreaterThan(200)
    expect(at(25, 190)[0]).toBeLessThan(60)
  })

  it("keeps an upright or unmarked JPEG as it was stored", async () => {
    const result = await fitImage(withOrientation(halves(400, 100), 1), "flat.jpg", target(200)).pipe(Effect.runPromise)
    expect(result.size).toEqual({ width: 200, height: 50 })
  })
})
