/**
 * The largest image a model takes (issue 12 item 5): bytes of the file and pixels of its longer
 * side. The figures per provider are in src/providers/known-models.ts with their sources; this
 * module only says whether an image fits and what size it shrinks to.
 */
import type { ImageSize } from "./image-size.ts"

export interface ImageLimits {
  /** Bytes of the stored file (the raw image, before base64). */
  readonly maxBytes: number
  /** Pixels of the longer side; undefined when the provider documents no limit. */
  readonly maxPixelsPerSide: number | undefined
}

/** An image fits when its file is small enough and (when its size is known) its longer side is. */
export const fitsPixels = (size: ImageSize | undefined, limits: ImageLimits): boolean =>
  size === undefined || limits.maxPixelsPerSide === undefined || Math.max(size.width, size.height) <= limits.maxPixelsPerSide

/**
 * The size `size` shrinks to so that its longer side is at most `maxSide`, keeping the aspect
 * ratio (each side rounded, never below one pixel). Unchanged when it already fits.
 */
export const shrinkToSide = (size: ImageSize, maxSide: number): ImageSize => {
  const longer = Math.max(size.width, size.height)
  if (longer <= maxSide) return size
  const scale = maxSide / longer
  return {
    width: size.width >= size.height ? maxSide : Math.max(1, Math.round(size.width * scale)),
    height: size.height > size.width ? maxSide : Math.max(1, Math.round(size.height * scale))
  }
}

/** "1568 px per side and 3.8 MiB", for refusals. */
export const describeLimits = (limits: ImageLimits, formatBytes: (bytes: number) => string): string =>
  limits.maxPixelsPerSide === undefined
    ? formatBytes(limits.maxBytes)
    : `${limits.maxPixelsPerSide} px per side and ${formatBytes(limits.maxBytes)}`
