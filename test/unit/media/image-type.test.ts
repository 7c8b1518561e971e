import { describe, expect, it } from "vitest"
import { imageSize } from "../../../src/media/image-size.ts"
import { describeBytes, sniffImage } from "../../../src/media/image-type.ts"
import { jpegHeader, makePng, tinyGif, webpHeader } from "../../support/images.ts"

describe("sniffImage", () => {
  it("knows each supported type by its signature", () => {
    expect(sniffImage(makePng(2, 2))).toBe("image/png")
    expect(sniffImage(jpegHeader(3, 4))).toBe("image/jpeg")
    expect(sniffImage(tinyGif())).toBe("image/gif")
    expect(sniffImage(Buffer.from("GIF87a......"))).toBe("image/gif")
    expect(sniffImage(webpHeader(5, 6))).toBe("image/webp")
  })

  it("refuses truncated signatures", () => {
    expect(sniffImage(makePng(2, 2).subarray(0, 7))).toBeUndefined()
    expect(sniffImage(Buffer.from([0xff, 0xd8]))).toBeUndefined()
    expect(sniffImage(Buffer.from("GIF89"))).toBeUndefined()
    expect(sniffImage(webpHeader(5, 6).subarray(0, 11))).toBeUndefined()
    expect(sniffImage(new Uint8Array())).toBeUndefined()
  })

  it("is not fooled by a RIFF that is not WEBP (a WAV file) or text naming a type", () => {
    const wav = Buffer.concat([Buffer.from("RIFF"), Buffer.alloc(4), Buffer.from("WAVEfmt ")])
    expect(sniffImage(wav)).toBeUndefined()
    expect(sniffImage(Buffer.from("PNG image data, 100 x 100"))).toBeUndefined()
  })

  it("describes what refused bytes look like", () => {
    expect(describeBytes(Buffer.from("%PDF-1.7\n"))).toBe("a PDF document")
    expect(describeBytes(Buffer.from("hello world\n"))).toBe("text, not image bytes")
    expect(describeBytes(new Uint8Array())).toBe("no bytes at all")
    expect(describeBytes(Buffer.from([0x42, 0x4d, 0, 0]))).toBe("a BMP image")
    expect(describeBytes(makePng(2, 2).subarray(0, 5))).toBe("a truncated or damaged image header")
    expect(describeBytes(Buffer.from([0x00, 0x01, 0x02, 0x03, 0x04]))).toBe("unrecognised bytes (starting 00 01 02 03)")
  })
})

describe("imageSize", () => {
  it("reads the declared pixel size of each type", () => {
    expect(imageSize(makePng(300, 20), "image/png")).toEqual({ width: 300, height: 20 })
    expect(imageSize(jpegHeader(4000, 3000), "image/jpeg")).toEqual({ width: 4000, height: 3000 })
    expect(imageSize(tinyGif(), "image/gif")).toEqual({ width: 1, height: 1 })
    expect(imageSize(webpHeader(16384, 2), "image/webp")).toEqual({ width: 16384, height: 2 })
  })

  it("says nothing for a header cut short", () => {
    expect(imageSize(makePng(300, 20).subarray(0, 20), "image/png")).toBeUndefined()
    expect(imageSize(jpegHeader(40, 30).subarray(0, 22), "image/jpeg")).toBeUndefined()
  })
})
