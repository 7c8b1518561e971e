/** A Renderer that shows nothing; pass the events a test wants to see. */
import { silentRenderer as nothingShown, type RendererShape } from "../../src/engine/renderer.ts"

export const silentRenderer = (overrides: Partial<RendererShape> = {}): RendererShape => ({ ...nothingShown, ...overrides })
