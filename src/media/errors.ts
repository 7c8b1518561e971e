/** Why an image was not taken or cannot be read back. Each message reads well on its own line. */
import * as Schema from "effect/Schema"
import { formatSizeOverLimit } from "../text/bytes.ts"

/** The bytes are not png, jpeg, gif or webp; `seen` says what they look like. */
export class UnsupportedImage extends Schema.TaggedError<UnsupportedImage>()("UnsupportedImage", {
  source: Schema.String,
  seen: Schema.String
}) {
  override get message(): string {
    return `${this.source} is not a supported image (png, jpeg, gif or webp): it is ${this.seen}`
  }
}

export class ImageTooLarge extends Schema.TaggedError<ImageTooLarge>()("ImageTooLarge", {
  source: Schema.String,
  bytes: Schema.Number,
  limit: Schema.Number
}) {
  override get message(): string {
    const { size, limit } = formatSizeOverLimit(this.bytes, this.limit)
    return `${this.source} is too large: ${size}, the limit is ${limit}`
  }
}

/** The media store could not keep the bytes (disk full, permissions). */
export class MediaWriteFailed extends Schema.TaggedError<MediaWriteFailed>()("MediaWriteFailed", {
  message: Schema.String
}) {}

/** A stored image is gone or no longer hashes to its name; the session keeps its reference. */
export class MediaUnavailable extends Schema.TaggedError<MediaUnavailable>()("MediaUnavailable", {
  sha256: Schema.String,
  reason: Schema.Literal("missing", "altered", "unreadable")
}) {
  override get message(): string {
    const what = this.reason === "missing" ? "is missing" : this.reason === "altered" ? "no longer matches its hash" : "cannot be read"
    return `the media file ${this.sha256.slice(0, 12)}… ${what}`
  }
}

export type MediaError = UnsupportedImage | ImageTooLarge | MediaWriteFailed
