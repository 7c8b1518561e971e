import * as Context from "effect/Context"
import type { ModelEntry } from "../providers/catalog.ts"
import type { ModelClientShape } from "../providers/model-client.ts"

export interface ActiveModelValue {
  readonly entry: ModelEntry
  readonly client: ModelClientShape
}

/**
 * The model the next request goes to. /model replaces it between turns: the transcript stays,
 * and each adapter drops what the new provider cannot take (another provider's reasoning state)
 * by the replay rules written at the top of its encode module.
 */
export interface ActiveModelShape {
  readonly get: () => ActiveModelValue
  readonly set: (value: ActiveModelValue) => void
}

export class ActiveModel extends Context.Tag("crystal/ActiveModel")<ActiveModel, ActiveModelShape>() {
  static readonly holding = (initial: ActiveModelValue): ActiveModelShape => {
    let current = initial
    return {
      get: () => current,
      set: (value) => {
        current = value
      }
    }
  }
}
