/**
 * The clipboard's image, read through the OS's own reader (SPEC I5). The readers are optional at
 * run time: a missing one is an error of the paste that needed it, never of start-up. The bytes
 * come back checked by signature and under the 20 MiB cap; keeping them is MediaStore's job.
 *
 * Readers are tried in order (Wayland, then X): one that is missing or fails hands over to the
 * next; one that answers (an image, no image, unsupported bytes, too large) is the answer.
 */
import * as fs from "node:fs"
import * as Effect from "effect/Effect"
import { ClipboardError, clipboardTooLarge, noImage, noReader, readerFailed, unsupportedClipboard } from "./clipboard-errors.ts"
import { clipboardReaders, decodeOutput, outputCap, type ClipboardHost, type ClipboardReader } from "./clipboard-readers.ts"
import { firstLine, runReader, type ReaderRun } from "./clipboard-run.ts"
import { describeBytes, sniffImage, type ImageMime } from "./image-type.ts"
import { maxImageBytes } from "./media-store.ts"

export interface ClipboardImage {
  readonly bytes: Uint8Array
  readonly mime: ImageMime
  /** The reader that gave it ("xclip"). */
  readonly reader: string
}

export interface ClipboardOptions {
  readonly host?: ClipboardHost
  /** Per command; the default leaves a slow clipboard owner (a busy browser) time to answer. */
  readonly timeoutMs?: number
  readonly limit?: number
}

const listingCap = 1024 * 1024
const defaultTimeoutMs = 10_000

export const currentHost = (): ClipboardHost => ({
  platform: process.platform,
  env: process.env,
  procVersion: process.platform === "linux" ? readProcVersion() : undefined
})

const readProcVersion = (): string | undefined => {
  try {
    return fs.readFileSync("/proc/version", "utf8")
  } catch {
    return undefined
  }
}

/** One reader's verdict: an answer (image or error) ends the search; "Missing" and "Failed" go on. */
type Attempt =
  | { readonly _tag: "Answer"; readonly result: ClipboardImage | ClipboardError }
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Failed"; readonly error: ClipboardError }

const answer = (result: ClipboardImage | ClipboardError): Attempt => ({ _tag: "Answer", result })

const failed = (reader: ClipboardReader, detail: string): Attempt => ({ _tag: "Failed", error: readerFailed(reader.label, detail) })

/** What a run means when it did not exit 0; undefined when it did (the caller reads its stdout). */
const runProblem = (reader: ClipboardReader, run: ReaderRun, tooLarge: Attempt): Attempt | undefined => {
  switch (run._tag) {
    case "Missing":
      return { _tag: "Missing" }
    case "TooLarge":
      return tooLarge
    case "TimedOut":
      return failed(reader, `no answer within ${run.seconds} s (the program holding the clipboard may be busy); try again`)
    case "SpawnFailed":
      return failed(reader, run.message)
    case "Exited": {
      if (run.code === 0) return undefined
      if (run.code === reader.tooLargeExit) return tooLarge
      const line = firstLine(run.stderr)
      if (reader.emptyStderr !== undefined && line !== undefined && reader.emptyStderr.test(line)) return answer(noImage(undefined))
      if (run.code !== null && reader.noImageExits !== undefined && run.code in reader.noImageExits) {
        return answer(noImage(reader.noImageExits[run.code]))
      }
      const detail = line ?? (run.code === null ? "it was killed by a signal" : `it exited with code ${run.code} and no message`)
      return failed(reader, detail)
    }
  }
}

const tryReader = (reader: ClipboardReader, limits: { readonly limit: number; readonly timeoutMs: number; readonly env: ClipboardHost["env"] }) =>
  Effect.gen(function* () {
    const { limit, timeoutMs, env } = limits
    let type: string | undefined
    if (reader.list !== undefined) {
      const listing = yield* runReader(reader.command, reader.list.args, { maxStdout: listingCap, timeoutMs, env })
      const problem = runProblem(reader, listing, failed(reader, "it listed more than 1 MiB of clipboard types"))
      if (problem !== undefined) return problem
      if (listing._tag !== "Exited") return failed(reader, "no listing")
      const offer = reader.list.parse(listing.stdout.toString("utf8"))
      if (offer._tag === "NoImage") return answer(noImage(offer.holds))
      if (offer._tag === "Unsupported") return answer(unsupportedClipboard(offer.seen))
      type = offer.type
    }
    const run = yield* runReader(reader.command, reader.read(type), { maxStdout: outputCap(reader.encoding, limit), timeoutMs, env })
    const problem = runProblem(reader, run, answer(clipboardTooLarge(limit)))
    if (problem !== undefined) return problem
    if (run._tag !== "Exited") return failed(reader, "no output")
    const bytes = decodeOutput(reader.encoding, run.stdout)
    if (bytes === undefined) return failed(reader, `it printed something other than ${reader.encoding === "base64" ? "base64" : "AppleScript data"}`)
    if (bytes.length > limit) return answer(clipboardTooLarge(limit))
    if (bytes.length === 0) return answer(noImage(undefined))
    const mime = sniffImage(bytes)
    if (mime === undefined) return answer(unsupportedClipboard(describeBytes(bytes)))
    return answer({ bytes, mime, reader: reader.label })
  })

/** The clipboard's image, or the one-line reason there is none. */
export const readClipboardImage = (options: ClipboardOptions = {}): Effect.Effect<ClipboardImage, ClipboardError> =>
  Effect.suspend(() => {
    const host = options.host ?? currentHost()
    const readers = clipboardReaders(host, options.limit ?? maxImageBytes)
    return readers instanceof ClipboardError ? Effect.fail(readers) : readWith(readers, host.env, options)
  }).pipe(Effect.withSpan("readClipboardImage"))

/** Tries `readers` in order (the platform's choice; a test's fakes). */
export const readWith = (
  readers: ReadonlyArray<ClipboardReader>,
  env: ClipboardHost["env"],
  options: Omit<ClipboardOptions, "host"> = {}
): Effect.Effect<ClipboardImage, ClipboardError> =>
  Effect.gen(function* () {
    const limit = options.limit ?? maxImageBytes
    const missing: Array<ClipboardReader> = []
    let failure: ClipboardError | undefined
    for (const reader of readers) {
      const attempt: Attempt = yield* tryReader(reader, { limit, timeoutMs: options.timeoutMs ?? defaultTimeoutMs, env })
      if (attempt._tag === "Answer") return yield* attempt.result instanceof ClipboardError ? Effect.fail(attempt.result) : Effect.succeed(attempt.result)
      if (attempt._tag === "Missing") missing.push(reader)
      else failure ??= attempt.error
    }
    return yield* Effect.fail(failure ?? noReader(missing))
  })
