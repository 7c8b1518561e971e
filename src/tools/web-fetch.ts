/**
 * web_fetch's run (docs/web-fetch.md): GET the URL (web-fetch-request.ts), turn the body into what
 * the model reads (web-fetch-convert.ts), cut it at max_chars and save the whole text where `read`
 * can page through it. What the page says is what the model gets: no other model summarises it.
 */
import * as Effect from "effect/Effect"
import { messageOf } from "../text/error-text.ts"
import { ToolError, type ToolContext, type ToolFailure, type ToolOutput } from "./tool.ts"
import { viewImageText } from "./view-image.ts"
import { convertBody } from "./web-fetch-convert.ts"
import { truncatedNote, webFetchGet, WebFetchProblem, type Fetched } from "./web-fetch-request.ts"
import { webFetchLimits, webFetchToolName, webFetchURL } from "./web-fetch-spec.ts"

export interface WebFetchArgs {
  readonly url: string
  readonly raw?: boolean | undefined
  readonly max_chars?: number | undefined
  readonly timeout_seconds?: number | undefined
}

export interface WebFetchSettings {
  readonly allowPrivate: ReadonlyArray<string>
  /** The most bytes read of one body (after decompression). */
  readonly maxBytes: number
  readonly maxRedirects: number
}

export const webFetchDefaults = { maxBytes: 10 * 1024 * 1024, maxRedirects: 5 } as const

const heading = (fetched: Fetched, title: string | undefined): string => {
  const via = fetched.redirectedFrom.length === 0 ? "" : ` (redirected from ${fetched.redirectedFrom[0]})`
  const type = fetched.contentType === "" ? "no Content-Type" : fetched.contentType
  const lines = [`${fetched.url.href}${via} — HTTP ${fetched.status}${fetched.statusText === "" ? "" : ` ${fetched.statusText}`}, ${type}`]
  if (title !== undefined) lines.push(`Title: ${title}`)
  return lines.join("\n")
}

/** The text cut at `maxChars`, the whole of it saved through `context.spill` and a note saying where. */
const capChars = (context: ToolContext, text: string, maxChars: number): Effect.Effect<string> => {
  if (text.length <= maxChars) return Effect.succeed(text)
  let end = maxChars
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end-- // never split a surrogate pair
  const shown = text.slice(0, end)
  const reason = `${text.length - end} more characters not shown (max_chars ${maxChars})`
  const lineOfCut = shown.split("\n").length
  return context.spill(webFetchToolName, text).pipe(
    Effect.map((saved) => `${shown}\n\n[${reason}; the full text saved to ${saved} — read it with offset=${lineOfCut}]`),
    Effect.catchAll((error) => Effect.succeed(`${shown}\n\n[${reason}; the full text could not be saved: ${error.message}]`))
  )
}

export const makeWebFetch =
  (settings: WebFetchSettings) =>
  (args: WebFetchArgs, context: ToolContext): Effect.Effect<ToolOutput, ToolFailure> =>
    Effect.gen(function* () {
      const url = webFetchURL(args.url)
      if (typeof url === "string") return yield* new ToolError({ message: url })
      const timeoutMs = (args.timeout_seconds ?? webFetchLimits.defaultTimeoutSeconds) * 1000
      const result = yield* Effect.tryPromise({
        try: (signal) => webFetchGet(url, { ...settings, timeoutMs }, signal),
        catch: (error) => new ToolError({ message: error instanceof WebFetchProblem ? error.message : `web_fetch could not fetch ${url.href}: ${messageOf(error)}` })
      })
      if (result._tag === "OtherHostRedirect") {
        return {
          text: `${result.from.href} redirects (HTTP ${result.status}) to ${result.to.href}, on another host: web_fetch did not follow it. Call web_fetch with that URL to read it.`
        }
      }
      const converted = yield* Effect.tryPromise({
        try: () => convertBody(result.body, result.contentType, result.url, args.raw === true),
        catch: (error) => new ToolError({ message: `web_fetch could not convert ${result.url.href}: ${messageOf(error)}` })
      })
      if (converted._tag === "Refused") return yield* new ToolError({ message: converted.reason })
      if (converted._tag === "Image") {
        if (result.truncated) return yield* new ToolError({ message: `web_fetch refuses the image at ${result.url.href}: it is larger than ${truncatedNote(settings.maxBytes)}.` })
        if (context.images === undefined) return yield* new ToolError({ message: "web_fetch cannot attach images in this session." })
        const attached = yield* context.images.attach(converted.bytes, result.url.href)
        return { text: viewImageText(attached, result.url.href), images: [attached.ref] }
      }
      const full = [heading(result, converted.title), converted.text, ...(result.truncated ? [truncatedNote(settings.maxBytes)] : [])].join("\n\n")
      const text = yield* capChars(context, full, args.max_chars ?? webFetchLimits.defaultMaxChars)
      return result.status >= 400 ? { text, isError: true } : { text }
    })
