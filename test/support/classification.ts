import * as Effect from "effect/Effect"
import type { Classification } from "../../src/approval/classification.ts"

/** For test tools that touch nothing: a low-risk read inside the workspace. */
export const touchesNothing = (): Effect.Effect<Classification> =>
  Effect.succeed({ risk: "low", authority: "read", scope: "workspace", summary: "test tool", paths: [] })
