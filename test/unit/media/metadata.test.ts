/**
 * An image Crystal re-encodes while shrinking it (src/media/image-fit.ts → downscale.ts) carries
 * none of the original's text or metadata: no PNG tEXt/zTXt/iTXt/eXIf chunk, no JPEG comment or
 * APPn segment but the bare JFIF header. Images within the model's limits are stored as given,
 * metadata included (docs/images.md: redaction covers text only).
 */
import { randomBytes } from "node:crypto"
import { deflateSync } from "node:zlib"
import * as Effect from "effect/Effect"
import * as jpeg from "jpeg-js"
import { describe, expect, it } from "vitest"
import { encode, type Pixels } from "../../../src/media/downscale.ts"
import { fitImage, type FitTarget } from "../../../src/media/image-fit.ts"
import { jpegSegment, jpegSegments, makePng, pngChunk, pngChunkTypes, withJpegSegments, withPngChunks } from "../../support/images.ts"

const marker = `MARKER-${randomBytes(8).toString("hex")}`
const text = (value: string): Buffer => Buffer.from(value, "latin1")

const target = (maxPixelsPerSide: number, maxBytes = 20 * 1024 * 1024): FitTarget => ({ model: "anthropic/claude-test", limits: { maxBytes, maxPixelsPerSide } })

const taggedPng = (noise = false): Buffer =>
  withPngChunks(makePng(600, 400, { noise }), [
    pngChunk("tEXt", text(`Comment\0${marker}`)),
    pngChunk("zTXt", Buffer.concat([text("Comment\0\0"), deflateSync(text(marker))])),
    pngChunk("iTXt", text(`XML:com.adobe.xmp\0\0\0\0\0<x:xmpmeta>${marker}</x:xmpmeta>`)),
    pngChunk("eXIf", text(`MM\0*\0\0\0\x08\0\0${marker}`)),
    pngChunk("tIME", Buffer.from([0x07, 0xea, 1, 2, 3, 4, 5]))
  ])

/** A 400×100 gradient JPEG with a comment, EXIF (orientation 6, then the marker), XMP, Photoshop and ICC segments. */
const taggedJpeg = (noise = false): Buffer => {
  const width = 400
  const height = 100
  const data = new Uint8Array(width * height * 4)
  for (let at = 0; at < data.length; at += 4) data.set(noise ? [...randomBytes(3), 255] : [(at / 4) % 256, 90, 160, 255], at)
  const plain = new Uint8Array(jpeg.encode({ data, width, height }, 100).data)
  const tiff = [0x4d, 0x4d, 0x00, 0x2a, 0, 0, 0, 8, 0, 1, 0x01, 0x12, 0, 3, 0, 0, 0, 1, 0, 6, 0, 0, 0, 0, 0, 0]
  return withJpegSegments(plain, [
    jpegSegment(0xfe, text(`comment ${marker}`)),
    jpegSegment(0xe1, Buffer.concat([text("Exif\0\0"), Buffer.from(tiff), text(marker)])),
    jpegSegment(0xe1, text(`http://ns.adobe.com/xap/1.0/\0<x:xmpmeta>${marker}</x:xmpmeta>`)),
    jpegSegment(0xed, text(`Photoshop 3.0\0${marker}`)),
    jpegSegment(0xe2, text(`ICC_PROFILE\0\x01\x01${marker}`))
  ])
}

const shrunk = async (bytes: Uint8Array, to: FitTarget) => {
  const result = await Effect.runPromise(fitImage(bytes, "shot", to))
  expect(result.resizedFrom).toBeDefined()
  return result
}

/** The segments of a JPEG jpeg-js wrote: a JFIF APP0 without a thumbnail, tables, the frame, the scan; nothing else. */
const expectBareJpeg = (bytes: Uint8Array) => {
  const segments = jpegSegments(bytes)
  const markers = new Set(segments.map((segment) => segment.marker))
  expect([...markers].filter((code) => code !== 0xe0 && (code >= 0xe0 && code <= 0xef || code === 0xfe))).toEqual([])
  const app0 = segments.filter((segment) => segment.marker === 0xe0)
  expect(app0).toHaveLength(1)
  expect(app0[0]?.payload.subarray(0, 5).toString("latin1")).toBe("JFIF\0")
  expect(app0[0]?.payload.length).toBe(14)
  expect([...markers].sort()).toEqual([0xc0, 0xc4, 0xda, 0xdb, 0xe0])
}

describe("metadata of a re-encoded image", () => {
  it("a PNG shrunk as PNG keeps IHDR, IDAT and IEND only", async () => {
    const original = taggedPng()
    expect(pngChunkTypes(original)).toEqual(["IHDR", "tEXt", "zTXt", "iTXt", "eXIf", "tIME", "IDAT", "IEND"])
    const result = await shrunk(original, target(300))
    expect(result.mime).toBe("image/png")
    expect(new Set(pngChunkTypes(result.bytes))).toEqual(new Set(["IHDR", "IDAT", "IEND"]))
    expect(Buffer.from(result.bytes).includes(marker)).toBe(false)
  })

  it("a PNG re-encoded as JPEG (over the byte limit) has a bare JFIF header", async () => {
    // Noise: a PNG of it does not compress, a JPEG does.
    const result = await shrunk(taggedPng(true), target(300, 100_000))
    expect(result.mime).toBe("image/jpeg")
    expectBareJpeg(result.bytes)
    expect(Buffer.from(result.bytes).includes(marker)).toBe(false)
  })

  it("a JPEG shrunk loses its comment, EXIF, XMP, Photoshop and ICC segments (its orientation applied to the pixels first)", async () => {
    const original = taggedJpeg()
    expect(jpegSegments(original).map((segment) => segment.marker).slice(0, 6)).toEqual([0xfe, 0xe1, 0xe1, 0xed, 0xe2, 0xe0])
    const result = await shrunk(original, target(200))
    // Stored 400×100 with orientation 6: shown 100×400, so shrunk to 50×200.
    expect(result.size).toEqual({ width: 50, height: 200 })
    expectBareJpeg(result.bytes)
    expect(Buffer.from(result.bytes).includes(marker)).toBe(false)
  })

  it("a JPEG over the byte limit only, re-encoded at its own size, loses them too", async () => {
    const original = taggedJpeg(true)
    const result = await shrunk(original, target(1568, original.length - 1))
    expect(result.size).toMatchObject({ width: 100, height: 400 })
    expectBareJpeg(result.bytes)
    expect(Buffer.from(result.bytes).includes(marker)).toBe(false)
  })

  it("the encoder writes the pixels alone, whatever else the object it is given carries", () => {
    const pixels = { width: 8, height: 8, data: new Uint8Array(8 * 8 * 4).fill(200) }
    const carrying = { ...pixels, comments: [marker], exifBuffer: Buffer.concat([text("Exif\0\0"), text(marker)]) } as Pixels
    for (const mime of ["image/jpeg", "image/png"] as const) {
      const bytes = encode(carrying, mime)
      expect(Buffer.from(bytes).includes(marker)).toBe(false)
      if (mime === "image/jpeg") expectBareJpeg(bytes)
      else expect(pngChunkTypes(bytes)).toEqual(["IHDR", "IDAT", "IEND"])
    }
  })

  it("an image within the limits is stored as given, metadata included", async () => {
    const original = taggedPng()
    const result = await Effect.runPromise(fitImage(original, "shot", target(1568)))
    expect(result.resizedFrom).toBeUndefined()
    expect(Buffer.from(result.bytes).includes(marker)).toBe(true)
  })
})
