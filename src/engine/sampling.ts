/**
 * The model side of an MCP server's sampling request (README "MCP servers"; the question to the
 * operator is src/mcp/sampling.ts): once the operator approved it, one side request to the
 * session's active model, like /side's — no tools, nothing of the session's conversation, nothing
 * stored, the plugins' rebuildModel/transformModel and onModelResponse as for a side question
 * (purpose "side"). The server's text is redacted of the session's secrets before it is sent; its
 * images go to a model that takes images (checked and fitted like any image, kept in memory only),
 * and are a note in the text for one that does not. The answer is capped at the server's maxTokens
 * (and the model's own output limit).
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { fitImage } from "../media/image-fit.ts"
import { imageLimitsOf, type ModelEntry } from "../providers/catalog.ts"
import type { ImageBytes } from "../providers/model-client.ts"
import type { ProvidersShape } from "../providers/providers.ts"
import type { HookPipeline } from "../plugins/pipeline.ts"
import { newItemId } from "../session/ids.ts"
import type { FinishReason, ImageRef, TranscriptItem } from "../session/items.ts"
import { redactText } from "../secrets/redact.ts"
import type { RedactorShape } from "../secrets/redactor.ts"
import type { Secrets } from "../secrets/secrets.ts"
import type { SamplingAnswer, SamplingPrompt } from "../mcp/sampling.ts"
import { sideRequest } from "./side-request.ts"
import { messageOf } from "../text/error-text.ts"
import { formatBytes } from "../text/bytes.ts"


/** Why the request got no answer, for the server (a JSON-RPC error) and a note. */
export class SamplingFailed extends Schema.TaggedError<SamplingFailed>()("SamplingFailed", {
  message: Schema.String
}) {}

export interface SamplingModelOptions {
  readonly activeModel: Pick<ProvidersShape, "current">
  /** The plugins' hook pipeline; undefined when no plugin has hooks. */
  readonly hooks: HookPipeline | undefined
  /** The session's secrets, kept out of the server's text before it is sent. */
  readonly redactor: Pick<RedactorShape, "secrets">
}

const stopReasonOf = (reason: FinishReason | undefined): string => (reason === "length" ? "maxTokens" : reason === undefined || reason === "stop" ? "endTurn" : reason)

/** The messages as transcript items, with the image bytes a model that takes images gets. */
const itemsOf = (prompt: SamplingPrompt, entry: ModelEntry, secrets: Secrets) =>
  Effect.gen(function* () {
    const images = new Map<string, ImageBytes>()
    const held = new Map<string, ImageRef>()
    const items: Array<TranscriptItem> = []
    const { sha256Of } = yield* Effect.promise(() => import("../media/hash.ts"))
    let count = 0
    for (const message of prompt.messages) {
      const texts: Array<string> = []
      const refs: Array<ImageRef> = []
      for (const part of message.parts) {
        if (part.type === "text") {
          texts.push(redactText(secrets, part.text))
          continue
        }
        const source = `MCP server ${prompt.server}'s image`
        const why =
          message.role === "assistant"
            ? "only the user's messages carry images"
            : !entry.capabilities.imageInput
              ? `${entry.ref} does not take images`
              : undefined
        if (why !== undefined) {
          texts.push(`[an image (${part.mime}, ${formatBytes(Buffer.byteLength(part.base64, "base64"))}) from the server is not shown: ${why}]`)
          continue
        }
        const fitted = yield* Effect.either(fitImage(Buffer.from(part.base64, "base64"), source, { model: entry.ref, limits: imageLimitsOf(entry) }))
        if (Either.isLeft(fitted)) {
          texts.push(`[an image (${part.mime}) from the server is not shown: ${fitted.left.message}]`)
          continue
        }
        const ref: ImageRef = { sha256: sha256Of(fitted.right.bytes), mime: fitted.right.mime, marker: `[Image #${++count}]` }
        images.set(ref.sha256, { mime: ref.mime, base64: Buffer.from(fitted.right.bytes).toString("base64") })
        held.set(ref.sha256, ref)
        refs.push(ref)
        texts.push(ref.marker ?? "")
      }
      const text = texts.join("\n")
      items.push(
        message.role === "user"
          ? { _tag: "user", id: newItemId(), text, ...(refs.length > 0 ? { images: refs } : {}) }
          : { _tag: "assistant", id: newItemId(), text, model: `mcp/${prompt.server}` }
      )
    }
    return { items, images, held }
  })

/** Asks the active model; the answer's text, the model and why it stopped. */
export const sampleActiveModel = (options: SamplingModelOptions, prompt: SamplingPrompt): Effect.Effect<SamplingAnswer, SamplingFailed> =>
  Effect.gen(function* () {
    const { entry, client } = options.activeModel.current()
    // The answer is at most what the server asked for, and at most what the model can give.
    const maxOutputTokens = Math.max(1, Math.min(Math.floor(prompt.maxTokens), entry.capabilities.maxOutputTokens))
    const capped: ModelEntry = { ...entry, capabilities: { ...entry.capabilities, maxOutputTokens } }
    const secrets = yield* options.redactor.secrets
    const { items, images, held } = yield* itemsOf(prompt, entry, secrets)
    const response = yield* sideRequest(
      { current: () => ({ entry: capped, client }) },
      { system: redactText(secrets, prompt.system), items, tools: [], ...(images.size > 0 ? { images } : {}) },
      options.hooks === undefined ? undefined : { hooks: options.hooks, purpose: "side", held }
    ).pipe(Effect.mapError((error) => new SamplingFailed({ message: `${entry.ref} failed: ${error.message}` })))
    if (response.text.trim() === "") {
      return yield* new SamplingFailed({
        message:
          response.calledTool !== undefined
            ? `${entry.ref} tried to call ${response.calledTool} instead of answering; sampling runs no tools`
            : `${entry.ref} returned an empty answer (${response.finishReason === "length" ? `it reached maxTokens, ${maxOutputTokens}` : `finish reason: ${response.finishReason ?? "none"}`})`
      })
    }
    return { text: response.text, model: response.model, stopReason: stopReasonOf(response.finishReason) }
  }).pipe(Effect.catchAllDefect((defect) => Effect.fail(new SamplingFailed({ message: `the model request failed: ${messageOf(defect)}` }))))
