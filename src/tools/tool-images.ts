/**
 * What the image tools need of the session (SPEC I6/I7), handed to them on the ToolContext: the
 * session wires it (src/engine/tool-images.ts), so that tools/ never imports the engine.
 */
import type * as Effect from "effect/Effect"
import type { ImageSize } from "../media/image-size.ts"
import type { ImageRef } from "../session/items.ts"
import type { ToolError } from "./tool.ts"

export interface AttachedImage {
  readonly ref: ImageRef
  /** Its pixel size as stored, when the header says. */
  readonly size: ImageSize | undefined
  /** The size it had before it was shrunk to the model's limits; absent when stored as given. */
  readonly resizedFrom?: ImageSize | undefined
  /** "provider/model" whose limits it was fitted to. */
  readonly model: string
}

export interface ToolImages {
  /**
   * Takes the next marker number, fits the bytes to the active model's limits and keeps them in
   * the media store: the same path as a pasted image. Fails when the model takes no images.
   */
  readonly attach: (bytes: Uint8Array, source: string) => Effect.Effect<AttachedImage, ToolError>
  /**
   * Asks config.json's imageModel about the image in a side request (no tools, nothing kept in
   * the conversation) and gives its answer; absent when no imageModel is configured.
   */
  readonly describe?: ((bytes: Uint8Array, source: string, question: string | undefined) => Effect.Effect<string, ToolError>) | undefined
}
