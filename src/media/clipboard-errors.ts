/**
 * Why a clipboard image could not be read (SPEC I5). One class, one reason per distinct operator
 * error; each message is one line that says what to do about it.
 */
import * as Schema from "effect/Schema"
import { formatBytes } from "../text/bytes.ts"

export const clipboardFailures = ["no-reader", "no-display", "no-image", "unsupported", "too-large", "failed"] as const
export type ClipboardFailure = (typeof clipboardFailures)[number]

export class ClipboardError extends Schema.TaggedError<ClipboardError>()("ClipboardError", {
  reason: Schema.Literal(...clipboardFailures),
  message: Schema.String
}) {}

const clipboardError = (reason: ClipboardFailure, message: string): ClipboardError => new ClipboardError({ reason, message })

/** `readers`: the commands tried, each with the package that installs it. */
export const noReader = (readers: ReadonlyArray<{ readonly label: string; readonly install: string }>): ClipboardError => {
  if (readers.length === 1) {
    const [only] = readers
    return clipboardError("no-reader", `cannot read the clipboard: ${only?.label} is not installed; install ${only?.install}`)
  }
  const commands = readers.map((reader) => reader.label).join(" nor ")
  const installs = readers.map((reader) => reader.install).join(" or ")
  return clipboardError("no-reader", `cannot read the clipboard: neither ${commands} is installed; install ${installs}`)
}

export const noDisplay = (): ClipboardError =>
  clipboardError(
    "no-display",
    "cannot read the clipboard: neither WAYLAND_DISPLAY nor DISPLAY is set (no desktop session here); paste an image file's path instead"
  )

/** `holds`: what the clipboard has instead ("text"), or undefined when it is empty. */
export const noImage = (holds: string | undefined): ClipboardError =>
  clipboardError(
    "no-image",
    holds === undefined ? "the clipboard is empty: copy an image first" : `the clipboard holds ${holds}, no image: copy an image first`
  )

/** `seen`: what the bytes are (describeBytes), e.g. "a BMP image". */
export const unsupportedClipboard = (seen: string): ClipboardError =>
  clipboardError("unsupported", `the clipboard image is not png/jpeg/gif/webp but ${seen}: save it as PNG and paste its path`)

export const clipboardTooLarge = (limitBytes: number): ClipboardError =>
  clipboardError(
    "too-large",
    `the clipboard image is larger than ${formatBytes(limitBytes)}, the limit: copy a smaller or downscaled image`
  )

/** `detail`: the first line of the reader's stderr, or what else went wrong. */
export const readerFailed = (command: string, detail: string): ClipboardError =>
  clipboardError("failed", `the clipboard reader ${command} failed: ${detail}`)
