/**
 * The session's image services for tools (src/tools/tool-images.ts): view_image attaches an image
 * the way a paste does (marker number first, the active model's limits, the media store), and
 * describe_image asks config.json's imageModel in a side request that runs no tools and leaves
 * the conversation as it was (SPEC I7). The image model's client is made on first use: missing
 * credentials fail that call, never the session's start.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type { Config } from "../config/schema.ts"
import { fitImage } from "../media/image-fit.ts"
import { MediaStore, type MediaStoreShape } from "../media/media-store.ts"
import { bindPlaceholders } from "../prompts/placeholders.ts"
import type { PromptResolverShape } from "../prompts/prompt-resolver.ts"
import { checkBaseURL } from "../providers/base-url.ts"
import { checkCredentials, imageLimitsOf, type ModelEntry } from "../providers/catalog.ts"
import { resolveImageModel } from "../providers/image-model.ts"
import type { ModelClientShape } from "../providers/model-client.ts"
import type { ProvidersShape } from "../providers/providers.ts"
import { Providers } from "../providers/providers.ts"
import { makeModelClient } from "../providers/registry.ts"
import { newItemId } from "../session/ids.ts"
import { ToolError } from "../tools/tool.ts"
import type { ToolImages } from "../tools/tool-images.ts"
import { keepImage, reserveImageNumber } from "./attach-image.ts"
import { Conversation, type ConversationShape } from "./conversation.ts"
import { sideRequest } from "./side-request.ts"
import { chargedTo } from "./usage-meter.ts"

export interface ToolImagesDeps {
  readonly conversation: ConversationShape
  readonly providers: ProvidersShape
  readonly media: MediaStoreShape
  readonly prompts: PromptResolverShape
  readonly config: Config
  readonly configFile: string
  readonly env: Readonly<Record<string, string | undefined>>
}

const asToolError = (error: { readonly message: string }): ToolError => new ToolError({ message: error.message })

/** What describe_image asks when the model gives no question. */
export const defaultImageQuestion = "everything visible: text, UI elements, errors, diagrams and their values"

export const makeToolImages = (deps: ToolImagesDeps): ToolImages => {
  const attach: ToolImages["attach"] = (bytes, source) =>
    Effect.flatMap(reserveImageNumber, (number) => keepImage(bytes, source, number)).pipe(
      Effect.provideService(Conversation, deps.conversation),
      Effect.provideService(Providers, deps.providers),
      Effect.provideService(MediaStore, deps.media),
      Effect.mapError(asToolError),
      Effect.withSpan("ToolImages.attach")
    )

  // Resolved (and its client made) at the first describe_image call, then kept.
  let imageModel: { readonly entry: ModelEntry; readonly client: ModelClientShape } | undefined
  const imageClient = Effect.suspend(() => {
    if (imageModel !== undefined) return Effect.succeed(imageModel)
    const checked = resolveImageModel(deps.config, deps.configFile, deps.env).pipe(
      Either.flatMap((entry) => (entry === undefined ? Either.left({ message: 'no "imageModel" is configured in config.json' }) : Either.right(entry))),
      Either.flatMap((entry) => checkBaseURL(entry, deps.config, deps.env)),
      Either.flatMap((entry) => checkCredentials(entry, deps.env))
    )
    if (Either.isLeft(checked)) return Effect.fail(new ToolError({ message: `describe_image: ${checked.left.message}` }))
    const entry = checked.right
    return Effect.map(makeModelClient(entry, deps.env), (client) => (imageModel = { entry, client }))
  })

  const describe: NonNullable<ToolImages["describe"]> = (bytes, source, question) =>
    Effect.gen(function* () {
      const { entry, client } = yield* imageClient
      const fitted = yield* Effect.mapError(fitImage(bytes, source, { model: entry.ref, limits: imageLimitsOf(entry) }), asToolError)
      const prompts = yield* deps.prompts.image(yield* deps.conversation.document)
      const text = bindPlaceholders(prompts.userTemplate, new Map([...(prompts.hostValues ?? []), ["question", question ?? defaultImageQuestion]])).trim()
      // node:crypto stays off the start-up path (src/media/hash.ts).
      const sha256 = (yield* Effect.promise(() => import("../media/hash.ts"))).sha256Of(fitted.bytes)
      const answer = yield* sideRequest(
        chargedTo(deps.conversation, { current: () => ({ entry, client }) }),
        {
          system: prompts.system,
          items: [{ _tag: "user", id: newItemId(), text, images: [{ sha256, mime: fitted.mime }] }],
          tools: [],
          images: new Map([[sha256, { mime: fitted.mime, base64: Buffer.from(fitted.bytes.buffer, fitted.bytes.byteOffset, fitted.bytes.byteLength).toString("base64") }]])
        }
      ).pipe(Effect.mapError((error) => new ToolError({ message: `describe_image: ${entry.ref} failed: ${error.message}` })))
      if (answer.text.trim() === "") return yield* new ToolError({ message: `describe_image: ${entry.ref} returned an empty answer` })
      return answer.text.trim()
    }).pipe(Effect.withSpan("ToolImages.describe"))

  return { attach, ...(deps.config.imageModel === undefined ? {} : { describe }) }
}
