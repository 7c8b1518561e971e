import type * as Stream from "effect/Stream"
import type { FinishReason, ImageRef, OpaqueState, TranscriptItem, Usage } from "../session/items.ts"
import type { ProviderError } from "./errors.ts"
import type { ModelEntry } from "./catalog.ts"

export interface ToolDefinition {
  readonly name: string
  readonly description: string
  /** JSON Schema of the arguments object. */
  readonly inputSchema: Readonly<Record<string, unknown>>
}

/** The bytes behind an ImageRef, looked up by the engine before the request is sent. */
export interface ImageBytes {
  readonly mime: string
  /**
   * The image's base64, or a token standing for it that the adapter's fetch replaces by the media
   * file's base64 while the body streams (src/media/streamed-body.ts): encoders place it as is.
   */
  readonly base64: string
}

/** The bytes of the `refs` the request carries, in order; a ref without bytes is left to its marker text. */
export const imagesWithBytes = (refs: ReadonlyArray<ImageRef> | undefined, images: ReadonlyMap<string, ImageBytes> | undefined): Array<ImageBytes> =>
  (refs ?? []).flatMap((ref) => {
    const bytes = images?.get(ref.sha256)
    return bytes === undefined ? [] : [bytes]
  })

/** An image as a data URL (OpenAI's wire shape). */
export const dataUrl = (image: ImageBytes): string => `data:${image.mime};base64,${image.base64}`

/**
 * `crystal run --output-schema`: the JSON Schema the final answer must match. Each adapter asks for
 * it the way its wire can (README, "Structured answers"); the engine validates the answer anyway.
 */
export interface OutputSchema {
  /** Letters, digits, `_` and `-`: OpenAI's json_schema name and Anthropic's answer tool. */
  readonly name: string
  readonly schema: Readonly<Record<string, unknown>>
}

export interface ModelRequest {
  readonly system: string
  readonly items: ReadonlyArray<TranscriptItem>
  readonly tools: ReadonlyArray<ToolDefinition>
  readonly model: ModelEntry
  /**
   * Bytes of the images the items refer to, by sha256. The engine only sends a request with
   * images to a model whose capabilities say `imageInput`; an ImageRef without bytes here is
   * sent as its marker text alone.
   */
  readonly images?: ReadonlyMap<string, ImageBytes>
  /** The final answer's JSON Schema, on every request of a `crystal run --output-schema` turn. */
  readonly outputSchema?: OutputSchema | undefined
}

export type ModelEvent =
  | { readonly type: "text_delta"; readonly text: string }
  | { readonly type: "reasoning_delta"; readonly text: string }
  /** Closes the current reasoning part, attaching the provider's state for replay. */
  | { readonly type: "reasoning_end"; readonly opaque?: OpaqueState }
  | {
      readonly type: "tool_call"
      readonly id: string
      readonly name: string
      readonly arguments: unknown
      readonly opaque?: OpaqueState
    }
  | { readonly type: "usage"; readonly usage: Usage }
  | { readonly type: "finish"; readonly reason: FinishReason }

/** One wire protocol behind one interface; the engine never sees the wire. */
export interface ModelClientShape {
  readonly stream: (request: ModelRequest) => Stream.Stream<ModelEvent, ProviderError>
}
