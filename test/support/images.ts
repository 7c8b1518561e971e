/** Real image bytes for tests: decodable PNGs of any size, and headers of the other types. */
import { deflateSync } from "node:zlib"

const crcTable = Array.from({ length: 256 }, (_, n) => {
  let c = n
  for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1
  return c >>> 0
})

const crc32 = (bytes: Uint8Array): number => {
  let c = 0xffffffff
  for (const byte of bytes) c = (crcTable[(c ^ byte) & 0xff] ?? 0) ^ (c >>> 8)
  return (c ^ 0xffffffff) >>> 0
}

export const pngChunk = (type: string, data: Uint8Array): Buffer => {
  const head = Buffer.alloc(8)
  head.writeUInt32BE(data.length, 0)
  head.write(type, 4, "ascii")
  const crc = Buffer.alloc(4)
  crc.writeUInt32BE(crc32(Buffer.concat([head.subarray(4), data])), 0)
  return Buffer.concat([head, data, crc])
}

/**
 * An RGBA PNG of `width`×`height`. `noise` fills it with pseudo-random pixels (seeded, so the
 * bytes are the same every run), which do not compress: the file is then about width×height×4 bytes.
 */
export const makePng = (width: number, height: number, options: { readonly noise?: boolean; readonly seed?: number } = {}): Buffer => {
  const row = width * 4 + 1
  const raw = Buffer.alloc(row * height)
  let state = options.seed ?? 1
  for (let y = 0; y < height; y++) {
    raw[y * row] = 0
    for (let x = 0; x < width * 4; x++) {
      if (options.noise === true) {
        state = (state * 1103515245 + 12345) >>> 0
        raw[y * row + 1 + x] = state >>> 24
      } else {
        raw[y * row + 1 + x] = x % 4 === 3 ? 255 : (x * 7 + y * 3) & 0xff
      }
    }
  }
  const ihdr = Buffer.alloc(13)
  ihdr.writeUInt32BE(width, 0)
  ihdr.writeUInt32BE(height, 4)
  ihdr[8] = 8
  ihdr[9] = 6
  return Buffer.concat([
    Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    pngChunk("IHDR", ihdr),
    pngChunk("IDAT", deflateSync(raw, { level: options.noise === true ? 0 : 6 })),
    pngChunk("IEND", Buffer.alloc(0))
  ])
}

/** The start of a baseline JPEG declaring `width`×`height` (APP0, then SOF0). */
export const jpegHeader = (width: number, height: number): Buffer =>
  Buffer.from([
    0xff, 0xd8, 0xff, 0xe0, 0x00, 0x10, 0x4a, 0x46, 0x49, 0x46, 0x00, 0x01, 0x01, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00,
    0xff, 0xc0, 0x00, 0x11, 0x08, height >> 8, height & 0xff, width >> 8, width & 0xff, 0x03, 0x01, 0x22, 0x00, 0x02, 0x11, 0x01, 0x03, 0x11, 0x01
  ])

/** A complete 1×1 GIF89a. */
export const tinyGif = (): Buffer =>
  Buffer.from("47494638396101000100800000000000ffffff21f90401000000002c00000000010001000002024401003b", "hex")

/** A RIFF/WEBP header with a VP8X chunk declaring `width`×`height`. */
export const webpHeader = (width: number, height: number): Buffer => {
  const bytes = Buffer.alloc(30)
  bytes.write("RIFF", 0, "ascii")
  bytes.writeUInt32LE(22, 4)
  bytes.write("WEBP", 8, "ascii")
  bytes.write("VP8X", 12, "ascii")
  bytes.writeUInt32LE(10, 16)
  bytes.writeUIntLE(width - 1, 24, 3)
  bytes.writeUIntLE(height - 1, 27, 3)
  return bytes
}

/** `png` with `chunks` (made by pngChunk) placed right after its IHDR. */
export const withPngChunks = (png: Uint8Array, chunks: ReadonlyArray<Uint8Array>): Buffer => {
  const afterHeader = 8 + 8 + 13 + 4
  return Buffer.concat([png.subarray(0, afterHeader), ...chunks, png.subarray(afterHeader)])
}

/** The chunk types of a PNG, in order. */
export const pngChunkTypes = (png: Uint8Array): Array<string> => {
  const bytes = Buffer.from(png)
  const types: Array<string> = []
  for (let at = 8; at + 8 <= bytes.length; at += 12 + bytes.readUInt32BE(at)) types.push(bytes.toString("ascii", at + 4, at + 8))
  return types
}

/** A JPEG segment: marker 0xFF `marker`, its length, `payload`. */
export const jpegSegment = (marker: number, payload: Uint8Array): Buffer => {
  const head = Buffer.from([0xff, marker, 0, 0])
  head.writeUInt16BE(payload.length + 2, 2)
  return Buffer.concat([head, payload])
}

/** `jpegBytes` with `segments` (made by jpegSegment) right after its SOI. */
export const withJpegSegments = (jpegBytes: Uint8Array, segments: ReadonlyArray<Uint8Array>): Buffer =>
  Buffer.concat([jpegBytes.subarray(0, 2), ...segments, jpegBytes.subarray(2)])

/** The markers of a JPEG's segments up to its start of scan, each with its payload. */
export const jpegSegments = (jpegBytes: Uint8Array): Array<{ readonly marker: number; readonly payload: Buffer }> => {
  const bytes = Buffer.from(jpegBytes)
  const segments: Array<{ marker: number; payload: Buffer }> = []
  let at = 2
  while (at + 4 <= bytes.length && bytes[at] === 0xff) {
    const marker = bytes[at + 1] ?? 0
    const length = bytes.readUInt16BE(at + 2)
    segments.push({ marker, payload: bytes.subarray(at + 4, at + 2 + length) })
    if (marker === 0xda) break
    at += 2 + length
  }
  return segments
}
