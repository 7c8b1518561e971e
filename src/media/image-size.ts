/**
 * The pixel size an image declares in its header, read without decoding it: enough to compare an
 * image with a provider's limits. Undefined when the header is cut short or does not say.
 */
import type { ImageMime } from "./image-type.ts"

export interface ImageSize {
  readonly width: number
  readonly height: number
}

const u16be = (bytes: Uint8Array, at: number): number => ((bytes[at] ?? 0) << 8) | (bytes[at + 1] ?? 0)
const u16le = (bytes: Uint8Array, at: number): number => (bytes[at] ?? 0) | ((bytes[at + 1] ?? 0) << 8)
const u24le = (bytes: Uint8Array, at: number): number => u16le(bytes, at) | ((bytes[at + 2] ?? 0) << 16)
const u32be = (bytes: Uint8Array, at: number): number => ((u16be(bytes, at) << 16) >>> 0) + u16be(bytes, at + 2)

const sized = (width: number, height: number): ImageSize | undefined => (width > 0 && height > 0 ? { width, height } : undefined)

/** IHDR is always the first chunk, right after the signature. */
const pngSize = (bytes: Uint8Array): ImageSize | undefined => (bytes.length < 24 ? undefined : sized(u32be(bytes, 16), u32be(bytes, 20)))

const gifSize = (bytes: Uint8Array): ImageSize | undefined => (bytes.length < 10 ? undefined : sized(u16le(bytes, 6), u16le(bytes, 8)))

/** Start-of-frame markers carry the size; every other marker segment is skipped by its length. */
const jpegSize = (bytes: Uint8Array): ImageSize | undefined => {
  let at = 2
  while (at + 9 < bytes.length) {
    if (bytes[at] !== 0xff) return undefined
    const marker = bytes[at + 1] ?? 0
    if (marker === 0xff) {
      at++
      continue
    }
    const isFrame = marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc
    if (isFrame) return sized(u16be(bytes, at + 7), u16be(bytes, at + 5))
    if (marker === 0xd9 || marker === 0xda) return undefined
    at += 2 + u16be(bytes, at + 2)
  }
  return undefined
}

const webpSize = (bytes: Uint8Array): ImageSize | undefined => {
  if (bytes.length < 30) return undefined
  const chunk = String.fromCharCode(...bytes.subarray(12, 16))
  if (chunk === "VP8X") return sized(u24le(bytes, 24) + 1, u24le(bytes, 27) + 1)
  if (chunk === "VP8L") {
    const bits = (bytes[21] ?? 0) | ((bytes[22] ?? 0) << 8) | ((bytes[23] ?? 0) << 16) | ((bytes[24] ?? 0) << 24)
    return sized((bits & 0x3fff) + 1, ((bits >>> 14) & 0x3fff) + 1)
  }
  if (chunk === "VP8 ") return sized(u16le(bytes, 26) & 0x3fff, u16le(bytes, 28) & 0x3fff)
  return undefined
}

export const imageSize = (bytes: Uint8Array, mime: ImageMime): ImageSize | undefined => {
  switch (mime) {
    case "image/png":
      return pngSize(bytes)
    case "image/jpeg":
      return jpegSize(bytes)
    case "image/gif":
      return gifSize(bytes)
    case "image/webp":
      return webpSize(bytes)
  }
}
