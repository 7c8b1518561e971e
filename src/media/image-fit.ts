/**
 * Fitting an image to a model's limits before it is stored (issue 12 item 5). An image within
 * them is kept byte for byte. A PNG or JPEG over them is shrunk (aspect ratio kept, area-average
 * resampling) and re-encoded as its own type; one still over the byte limit is tried as JPEG (a
 * PNG too: see docs/images.md), then smaller, until it fits or is refused. GIF and WebP are not
 * re-encoded here: over a limit they are refused with what to do instead.
 */
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { type ImageTooLarge, type UnsupportedImage } from "./errors.ts"
import { describeLimits, fitsPixels, shrinkToSide, type ImageLimits } from "./image-limits.ts"
import type { ImageSize } from "./image-size.ts"
import type { ImageMime } from "./image-type.ts"
import { checkImage } from "./media-store.ts"
import { messageOf } from "../text/error-text.ts"
import { formatBytes } from "../text/bytes.ts"

/** The image is over the model's limits and cannot be made to fit them. */
export class ImageOverLimit extends Schema.TaggedError<ImageOverLimit>()("ImageOverLimit", {
  message: Schema.String
}) {}

export interface FittedImage {
  readonly bytes: Uint8Array
  readonly mime: ImageMime
  readonly size: ImageSize | undefined
  /** The size it had before it was shrunk; absent when the bytes are the ones given. */
  readonly resizedFrom?: ImageSize | undefined
}

/** The model an image is fitted for, as named in refusals. */
export interface FitTarget {
  readonly model: string
  readonly limits: ImageLimits
}

const typeName: Record<ImageMime, string> = { "image/png": "PNG", "image/jpeg": "JPEG", "image/gif": "GIF", "image/webp": "WebP" }

const dimensions = (size: ImageSize | undefined): string => (size === undefined ? "" : `${size.width}×${size.height} px, `)

/** Shrink factors tried (on top of the pixel limit) and JPEG qualities tried at each, in order. */
const shrinkSteps = [1, 0.75, 0.5, 0.35, 0.25] as const
const jpegQualities = [85, 70] as const
/** Smaller than this an image says little; one that only fits below it is refused. */
const smallestSide = 256

export const fitImage = (
  bytes: Uint8Array,
  source: string,
  target: FitTarget
): Effect.Effect<FittedImage, UnsupportedImage | ImageTooLarge | ImageOverLimit> =>
  Effect.gen(function* () {
    const checked = yield* checkImage(bytes, source)
    const { limits, model } = target
    if (fitsPixels(checked.size, limits) && bytes.length <= limits.maxBytes) return { bytes, mime: checked.mime, size: checked.size }
    const over = `${source} (${typeName[checked.mime]}, ${dimensions(checked.size)}${formatBytes(bytes.length)}) is over what ${model} takes (${describeLimits(limits, formatBytes)})`
    if (checked.mime !== "image/png" && checked.mime !== "image/jpeg") {
      return yield* new ImageOverLimit({ message: `${over}; Crystal can only shrink PNG and JPEG images: convert it to PNG or JPEG` })
    }
    const mime = checked.mime
    const codec = yield* Effect.promise(() => import("./downscale.ts"))
    if (checked.size !== undefined && checked.size.width * checked.size.height > codec.maxDecodePixels) {
      return yield* new ImageOverLimit({ message: `${over}; it has too many pixels to shrink here (over ${codec.maxDecodePixels / 1_000_000} megapixels)` })
    }
    const pixels = yield* Effect.try({
      try: () => codec.decode(bytes, mime),
      catch: (error) => new ImageOverLimit({ message: `${over}; it cannot be decoded to shrink it (${messageOf(error)})` })
    })
    const fitted = shrinkToSide(pixels, limits.maxPixelsPerSide ?? Math.max(pixels.width, pixels.height))
    for (const step of shrinkSteps) {
      const size = shrinkToSide(fitted, Math.max(1, Math.round(Math.max(fitted.width, fitted.height) * step)))
      if (step < 1 && Math.max(size.width, size.height) < smallestSide) break
      const resized = size.width === pixels.width && size.height === pixels.height ? pixels : codec.resize(pixels, size)
      const attempts = [
        ...(mime === "image/png" ? [() => ({ mime: "image/png" as const, bytes: codec.encode(resized, "image/png") })] : []),
        ...jpegQualities.map((quality) => () => ({ mime: "image/jpeg" as const, bytes: codec.encode(resized, "image/jpeg", quality) }))
      ]
      for (const attempt of attempts) {
        const encoded = attempt()
        if (encoded.bytes.length <= limits.maxBytes) return { bytes: encoded.bytes, mime: encoded.mime, size, resizedFrom: { width: pixels.width, height: pixels.height } }
      }
    }
    return yield* new ImageOverLimit({ message: `${over}; even shrunk to ${smallestSide} px as JPEG it does not fit: use a smaller image` })
  }).pipe(Effect.withSpan("fitImage", { attributes: { source, bytes: bytes.length } }))
