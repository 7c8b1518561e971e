/**
 * The path fence: every path a tool touches is resolved to a real path (symlinks and `..` included)
 * and checked against the workspace and the directories granted to the session.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { isWithin } from "../files/within.ts"
import type { Scope } from "./classification.ts"
import { messageOf } from "../text/error-text.ts"

export type Access = "read" | "write"

/** A path that cannot be resolved, or that lies where the call may not go; the message is for the model. */
export class FenceError extends Schema.TaggedError<FenceError>()("FenceError", {
  message: Schema.String
}) {}

export interface Grant {
  /** Real path of the granted directory. */
  readonly root: string
  readonly access: Access
}

export interface FencedPath {
  /** The real path (symlinks resolved) the tool must use. */
  readonly real: string
  /** How to show it to the model: relative to the workspace when inside it. */
  readonly display: string
}

export interface LocatedPath extends FencedPath {
  readonly scope: Scope
}

export interface PathFence {
  readonly workspace: string
  readonly grants: ReadonlyArray<Grant>
  /** The real path, refused unless the workspace or a grant allows `access` there. Tools use this. */
  readonly resolve: (input: string, access: Access) => Effect.Effect<FencedPath, FenceError>
  /** The real path and where it lies, refusing nothing. Classification uses this. */
  readonly locate: (input: string, access: Access) => Effect.Effect<LocatedPath, FenceError>
  readonly display: (real: string) => string
  /** The same fence with more grants, e.g. the paths of a call the operator approved. */
  readonly withGrants: (extra: ReadonlyArray<Grant>) => PathFence
}

export { isWithin } from "../files/within.ts"

/**
 * Real path of `target`, or of its deepest existing ancestor joined with the rest (for new files).
 * A dangling symbolic link is followed, because writing through it would create its target.
 */
export const realPathAllowingMissing = (target: string): string => {
  const missing: Array<string> = []
  let current = target
  let hops = 0
  for (;;) {
    try {
      const real = fs.realpathSync(current)
      return missing.length === 0 ? real : path.join(real, ...[...missing].reverse())
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code
      if (code !== "ENOENT" && code !== "ENOTDIR") throw error
      const link = readLinkOrUndefined(current)
      if (link !== undefined) {
        if (++hops > 40) throw new Error("too many levels of symbolic links")
        current = path.resolve(path.dirname(current), link)
        continue
      }
      const parent = path.dirname(current)
      if (parent === current) return target
      missing.push(path.basename(current))
      current = parent
    }
  }
}

const readLinkOrUndefined = (file: string): string | undefined => {
  try {
    return fs.readlinkSync(file)
  } catch {
    return undefined
  }
}

const expandHome = (input: string): string =>
  input === "~" ? os.homedir() : input.startsWith("~/") ? path.join(os.homedir(), input.slice(2)) : input

const resolveInput = (workspace: string, input: string): Effect.Effect<{ absolute: string; real: string }, FenceError> =>
  Effect.try({
    try: () => {
      if (input.includes("\0")) throw new Error("the path contains a NUL byte")
      const absolute = path.resolve(workspace, expandHome(input))
      return { absolute, real: realPathAllowingMissing(absolute) }
    },
    catch: (error) => new FenceError({ message: `cannot resolve path '${input}': ${messageOf(error)}` })
  })

const fenceFrom = (realWorkspace: string, realGrants: ReadonlyArray<Grant>): PathFence => {
  const display = (real: string): string => {
    if (real === realWorkspace) return "."
    return isWithin(realWorkspace, real) ? path.relative(realWorkspace, real) : real
  }

  const allows = (real: string, access: Access): boolean =>
    realGrants.some((grant) => isWithin(grant.root, real) && (access === "read" || grant.access === "write"))

  const scopeOf = (real: string, access: Access): Scope =>
    isWithin(realWorkspace, real) ? "workspace" : allows(real, access) ? "granted" : "outside"

  const locate = (input: string, access: Access): Effect.Effect<LocatedPath, FenceError> =>
    Effect.map(resolveInput(realWorkspace, input), ({ real }) => ({ real, display: display(real), scope: scopeOf(real, access) }))

  const resolve = (input: string, access: Access): Effect.Effect<FencedPath, FenceError> =>
    Effect.flatMap(resolveInput(realWorkspace, input), ({ absolute, real }) => {
      if (allows(real, access)) return Effect.succeed({ real, display: display(real) })
      const via = real === absolute ? "" : ` (through a symbolic link it resolves to ${real})`
      const where = access === "read" ? "readable directories" : "writable directories"
      return Effect.fail(
        new FenceError({
          message: `'${input}' is outside the workspace ${realWorkspace} and the ${where} granted to this session${via}; ${access} refused`
        })
      )
    })

  const withGrants = (extra: ReadonlyArray<Grant>): PathFence => fenceFrom(realWorkspace, [...realGrants, ...extra])

  return { workspace: realWorkspace, grants: realGrants, resolve, locate, display, withGrants }
}

/**
 * Path checks are a few metadata syscalls each, so they run synchronously: simpler, and faster
 * than a thread-pool round trip per call. Throws when the workspace itself cannot be resolved.
 */
export const makePathFence = (
  workspace: string,
  grants: ReadonlyArray<{ readonly dir: string; readonly access: Access }> = []
): PathFence => {
  const realWorkspace = fs.realpathSync(workspace)
  return fenceFrom(realWorkspace, [
    { root: realWorkspace, access: "write" },
    ...grants.map((grant) => ({ root: realPathAllowingMissing(path.resolve(grant.dir)), access: grant.access }))
  ])
}
