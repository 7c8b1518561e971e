import * as path from "node:path"
import * as Effect from "effect/Effect"
import { writeFileAtomic } from "../files/atomic.ts"
import { ToolError } from "./tool.ts"
import { messageOf } from "../text/error-text.ts"

let sequence = 0

/** Saves full tool outputs under the session's spill directory (which the fence lets `read` open). */
export const makeSpill =
  (dir: string) =>
  (toolName: string, text: string): Effect.Effect<string, ToolError> => {
    const file = path.join(dir, `${toolName}-${Date.now()}-${sequence++}.txt`)
    return Effect.tryPromise({
      try: () => writeFileAtomic(file, text, { mode: 0o600 }),
      catch: (error) => new ToolError({ message: `could not save the full output: ${messageOf(error)}` })
    }).pipe(Effect.as(file))
  }
