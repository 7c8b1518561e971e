import type { ModelEntry } from "../providers/catalog.ts"
import { ProviderError } from "../providers/errors.ts"
import type { TranscriptItem } from "../session/items.ts"

/**
 * SPEC I3: a model opts in to images with `imageInput: true`; a request that would carry images
 * to any other model is refused before anything is sent.
 */
export const checkImageInput = (model: ModelEntry, items: ReadonlyArray<TranscriptItem>): ProviderError | undefined => {
  if (model.capabilities.imageInput) return undefined
  const withImages = items.filter((item) => (item._tag === "user" || item._tag === "tool_result") && (item.images?.length ?? 0) > 0)
  if (withImages.length === 0) return undefined
  return new ProviderError({
    kind: "unsupported",
    provider: model.provider.name,
    message:
      `${model.ref} does not take images (imageInput is not set for it), and the conversation holds ${withImages.length} message` +
      `${withImages.length === 1 ? "" : "s"} with images; switch to a model with "imageInput": true in config.json`
  })
}
