/**
 * What kind of image a run of bytes is, by its signature (SPEC I4): the name a file was given, or
 * the type a clipboard claims, never decides. Only the four types every image-capable protocol
 * takes are images here; anything else is described by what it looks like, for the refusal.
 */
export const imageMimes = ["image/png", "image/jpeg", "image/gif", "image/webp"] as const
export type ImageMime = (typeof imageMimes)[number]

export const isImageMime = (mime: string): mime is ImageMime => (imageMimes as ReadonlyArray<string>).includes(mime)

const startsWith = (bytes: Uint8Array, signature: ReadonlyArray<number>, at = 0): boolean =>
  bytes.length >= at + signature.length && signature.every((byte, index) => bytes[at + index] === byte)

const ascii = (text: string): ReadonlyArray<number> => [...text].map((char) => char.charCodeAt(0))

const png = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]
const jpeg = [0xff, 0xd8, 0xff]
const gif87 = ascii("GIF87a")
const gif89 = ascii("GIF89a")
const riff = ascii("RIFF")
const webp = ascii("WEBP")

/** The image type of `bytes`, or undefined when they are not one of the four. */
export const sniffImage = (bytes: Uint8Array): ImageMime | undefined => {
  if (startsWith(bytes, png)) return "image/png"
  if (startsWith(bytes, jpeg)) return "image/jpeg"
  if (startsWith(bytes, gif87) || startsWith(bytes, gif89)) return "image/gif"
  if (startsWith(bytes, riff) && startsWith(bytes, webp, 8)) return "image/webp"
  return undefined
}

const otherKinds: ReadonlyArray<readonly [ReadonlyArray<number>, string, number?]> = [
  [ascii("%PDF"), "a PDF document"],
  [[0x42, 0x4d], "a BMP image"],
  [[0x49, 0x49, 0x2a, 0x00], "a TIFF image"],
  [[0x4d, 0x4d, 0x00, 0x2a], "a TIFF image"],
  [ascii("ftypheic"), "a HEIC image", 4],
  [ascii("ftypheix"), "a HEIC image", 4],
  [ascii("ftypavif"), "an AVIF image", 4],
  [[0x00, 0x00, 0x01, 0x00], "an ICO icon"],
  [ascii("<svg"), "an SVG drawing (text)"],
  [ascii("<?xml"), "an XML document"],
  [[0x50, 0x4b, 0x03, 0x04], "a ZIP archive"],
  [[0x1f, 0x8b], "a gzip archive"],
  [[0x7f, 0x45, 0x4c, 0x46], "an ELF program"]
]

const looksLikeText = (bytes: Uint8Array): boolean => {
  const sample = bytes.subarray(0, 512)
  return sample.length > 0 && sample.every((byte) => byte === 0x09 || byte === 0x0a || byte === 0x0d || (byte >= 0x20 && byte !== 0x7f))
}

/** What `bytes` look like when they are not a supported image, for an operator-facing refusal. */
export const describeBytes = (bytes: Uint8Array): string => {
  if (bytes.length === 0) return "no bytes at all"
  if (startsWith(bytes, png.slice(0, 4)) || startsWith(bytes, riff)) return "a truncated or damaged image header"
  for (const [signature, kind, at] of otherKinds) if (startsWith(bytes, signature, at ?? 0)) return kind
  if (looksLikeText(bytes)) return "text, not image bytes"
  const head = [...bytes.subarray(0, 4)].map((byte) => byte.toString(16).padStart(2, "0")).join(" ")
  return `unrecognised bytes (starting ${head})`
}
