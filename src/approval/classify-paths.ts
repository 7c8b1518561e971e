import * as Effect from "effect/Effect"
import { widestScope, type Authority, type Classification, type Risk } from "./classification.ts"
import type { Access, FenceError, PathFence } from "./path-fence.ts"
import { protectedFileReason } from "./protected-files.ts"

/**
 * Classification of a call whose effect is fully described by the paths it names: reads are low
 * risk, writes medium; either becomes high when it reaches outside the workspace and its grants.
 */
export const classifyPaths = (
  toolName: string,
  access: Access,
  inputs: ReadonlyArray<string>,
  context: { readonly fence: PathFence },
  /** What the call does, when its paths alone do not say it (a pattern, for example). */
  detail?: string
): Effect.Effect<Classification, FenceError> =>
  Effect.gen(function* () {
    const located = yield* Effect.forEach(inputs, (input) => context.fence.locate(input, access))
    const scope = widestScope(...located.map((path) => path.scope))
    const authority: Authority = access === "read" ? "read" : "write"
    const protectedWrite =
      access === "write" ? located.flatMap((path, index) => [protectedFileReason(path.real), protectedFileReason(inputs[index] ?? "")]).find((reason) => reason !== undefined) : undefined
    const risk: Risk = scope === "outside" || protectedWrite !== undefined ? "high" : access === "read" ? "low" : "medium"
    const shown = located.map((path) => path.display).join(", ")
    return {
      protectedWrite,
      risk,
      authority,
      scope,
      summary: `${detail === undefined ? `${toolName} ${shown}` : `${toolName} ${detail} in ${shown}`}${protectedWrite === undefined ? "" : ` (${protectedWrite})`}`,
      paths: located.map((path) => ({ real: path.real, access, scope: path.scope })),
      grantKey: `${toolName}:${located.map((path) => path.real).join(",")}`
    }
  })
