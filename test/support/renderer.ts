/** A Renderer that shows nothing; pass the events a test wants to see. */
import * as Effect from "effect/Effect"
import type { RendererShape } from "../../src/engine/renderer.ts"

export const silentRenderer = (overrides: Partial<RendererShape> = {}): RendererShape => ({
  sessionStarted: () => Effect.void,
  textDelta: () => Effect.void,
  reasoningDelta: () => Effect.void,
  assistantMessage: () => Effect.void,
  toolStarted: () => Effect.void,
  approval: () => Effect.void,
  toolProgress: () => Effect.void,
  toolFinished: () => Effect.void,
  retrying: () => Effect.void,
  note: () => Effect.void,
  finished: () => Effect.void,
  failed: () => Effect.void,
  ...overrides
})
