/**
 * The host classification of a `bash` tool call (SPEC A1), computed by parsing the command line —
 * never by running it. shell/parse.ts parses, bash/analyze.ts walks the tree with the command
 * tables of bash/commands/dispatch.ts; this module resolves the named paths through the fence (symbolic
 * links included) and draws the conclusions that need real paths: scope, writes to protected
 * places, deletions of the root or the home directory.
 *
 * Stricter than convenient on purpose: anything it cannot read is execute and at least medium,
 * dynamic command names and write targets are high, unparseable input is high.
 */
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { analyzeCommandLine } from "./analyze.ts"
import { globMatches } from "./glob-match.ts"
import { optionGlobReason } from "./option-globs.ts"
import type { OptionGlob, PathRef, PrefixEntry, Reason } from "./types.ts"
import { maxRisk, widestScope, type Classification, type Risk, type Scope, type TouchedPath } from "../classification.ts"
import { repositoryRunsPrograms } from "../git/repo-config.ts"
import { protectedFileReason } from "../protected-files.ts"
import { isWithin, realPathAllowingMissing, type Access, type FenceError, type LocatedPath, type PathFence } from "../path-fence.ts"
import { clip } from "../../text/clip.ts"

export interface CommandClassifierOptions {
  /**
   * Directories no command may write to or delete, e.g. Crystal's home (its config and sessions).
   * Writes there are forbidden even in the most permissive approval mode.
   */
  readonly protectedDirs?: ReadonlyArray<string>
  /** What `~` and `$HOME` stand for; defaults to the current user's home directory. */
  readonly home?: string
  /** The environment commands run with (which variables are exported); defaults to this process's. */
  readonly environment?: Readonly<Record<string, string | undefined>>
}

export const classifyBash = (command: string, fence: PathFence, options: CommandClassifierOptions = {}): Effect.Effect<Classification, FenceError> =>
  Effect.gen(function* () {
    const home = path.resolve(options.home ?? os.homedir())
    const shown = showCommand(command)
    const analysis = analyzeCommandLine(command, { workspace: fence.workspace, home, environment: options.environment ?? process.env })
    if (analysis.kind === "unparseable") {
      return {
        risk: "high",
        authority: "execute",
        scope: "outside",
        summary: `run \`${shown}\` (cannot be parsed: ${analysis.message})`,
        paths: [],
        grantKey: undefined
      } satisfies Classification
    }
    // One fence lookup per distinct path and access; a path the fence cannot resolve is unknown.
    const keys = analysis.paths.map((ref) => (ref.abs === undefined ? undefined : `${ref.access}\0${ref.abs}`))
    const distinct = [...new Set(keys.filter((key) => key !== undefined))]
    const results = yield* Effect.forEach(distinct, (key) => {
      const [access, abs] = key.split("\0") as [Access, string]
      return Effect.orElseSucceed(fence.locate(abs, access), () => undefined)
    })
    const byKey = new Map(distinct.map((key, index) => [key, results[index]]))
    const located = keys.map((key) => (key === undefined ? undefined : byKey.get(key)))
    const guard = guardFor(home, fence.workspace, options.protectedDirs ?? [])
    const concluded = conclude(shown, analysis.risk, analysis.authority, analysis.reasons, analysis.paths, located, analysis.prefixes, guard, fence.workspace)
    const withScope: Classification = analysis.outside ? { ...concluded, scope: "outside" } : concluded
    return gitConfigCheck(optionGlobCheck(withScope, analysis.optionGlobs), analysis.gitReads)
  })

interface Guard {
  /** The protected directory a written path lies in, if any. */
  readonly protectedRoot: (abs: string) => string | undefined
  /** The path (or, for a glob, what it matches) contains a protected directory. */
  readonly containsProtected: (abs: string, pattern: string | undefined) => string | undefined
  /**
   * Deleting (or recursively re-permissioning) this path would wreck the system or the home
   * directory: the root, the home directory and its ancestors, system directories and their
   * children (`/usr`, `/usr/lib`, `/etc`…). A glob counts when it sweeps a whole directory.
   */
  readonly critical: (abs: string, glob: boolean, sweeping: boolean) => boolean
}

const realOrSame = (dir: string): string => {
  try {
    return realPathAllowingMissing(dir)
  } catch {
    return dir
  }
}

const BLOCK_DEVICE = /^\/dev\/(sd[a-z]|hd[a-z]|vd[a-z]|xvd[a-z]|nvme[0-9]|mmcblk[0-9]|disk[0-9]|rdisk[0-9]|md[0-9]|dm-[0-9]|mapper\/|sr[0-9]|loop[0-9]|mem$|kmem$|port$)/
const SYSTEM_TOP = new Set([
  "bin",
  "boot",
  "dev",
  "etc",
  "lib",
  "lib32",
  "lib64",
  "libx32",
  "opt",
  "proc",
  "root",
  "sbin",
  "sys",
  "usr",
  "var",
  "System",
  "Library",
  "Applications",
  "private",
  "snap",
  "srv",
  "nix",
  "home",
  "Users"
])

const TEMP_DIRS = new Set(["/tmp", "/var/tmp", "/private/tmp", "/private/var/tmp", "/private/var/folders"])

const guards = new Map<string, Guard>()

/** Guards are built once per home, workspace and protected list (they resolve a few real paths). */
const guardFor = (home: string, workspace: string, extra: ReadonlyArray<string>): Guard => {
  const key = [home, workspace, ...extra].join("\0")
  let guard = guards.get(key)
  if (guard === undefined) {
    if (guards.size >= 16) guards.clear()
    guard = makeGuard(home, workspace, extra)
    guards.set(key, guard)
  }
  return guard
}

const makeGuard = (home: string, workspace: string, extra: ReadonlyArray<string>): Guard => {
  const roots = new Set<string>()
  for (const dir of [path.join(home, ".ssh"), path.join(home, ".gnupg"), path.join(home, ".aws"), "/etc", "/private/etc", "/boot", "/proc/sysrq-trigger", ...extra.map((dir) => path.resolve(workspace, dir))]) {
    roots.add(dir)
    roots.add(realOrSame(dir))
  }
  const realHome = realOrSame(home)
  const homes = [home, realHome]
  const protectedRoot = (abs: string): string | undefined => {
    if (BLOCK_DEVICE.test(abs)) return abs
    for (const root of roots) if (isWithin(root, abs)) return root
    return undefined
  }
  const containsProtected = (abs: string, pattern: string | undefined): string | undefined => {
    for (const root of roots) {
      if (!isWithin(abs, root)) continue
      if (pattern === undefined) return root
      const below = root.slice(abs === "/" ? 1 : abs.length + 1).split("/")[0]
      if (below !== undefined && below !== "" && globMatches(pattern, below)) return root
    }
    return undefined
  }
  const critical = (abs: string, glob: boolean, sweeping: boolean): boolean => {
    if (abs === "/") return true
    if (homes.some((h) => isWithin(abs, h))) return !glob || sweeping
    if (TEMP_DIRS.has(abs)) return !glob
    const segments = abs.split("/").filter((segment) => segment !== "")
    return segments.length <= 2 && SYSTEM_TOP.has(segments[0] ?? "")
  }
  return { protectedRoot, containsProtected, critical }
}

const conclude = (
  shown: string,
  baseRisk: Risk,
  authority: Classification["authority"],
  baseReasons: ReadonlyArray<Reason>,
  refs: ReadonlyArray<PathRef>,
  located: ReadonlyArray<LocatedPath | undefined>,
  prefixes: ReadonlyArray<PrefixEntry>,
  guard: Guard,
  workspace: string
): Classification => {
  let risk = baseRisk
  const reasons: Array<Reason> = [...baseReasons]
  const add = (level: Risk, text: string): void => {
    risk = maxRisk(risk, level)
    if (!reasons.some((reason) => reason.risk === level && reason.text === text)) reasons.push({ risk: level, text })
  }
  const scopes: Array<Scope> = []
  let protectedWrite: string | undefined = undefined
  const touched = new Map<string, TouchedPath>()
  refs.forEach((ref, index) => {
    const location = located[index]
    if (ref.abs === undefined || location === undefined) {
      scopes.push("outside")
      if (ref.access === "write") add("high", `writes to a path only known at run time: ${ref.display}`)
      else add("medium", `reads a path only known at run time: ${ref.display}`)
      return
    }
    const candidates = [ref.abs, location.real]
    if (ref.access === "write") {
      const root = candidates.map(guard.protectedRoot).find((hit) => hit !== undefined)
      if (root !== undefined) add("forbidden", `writes to ${root}`)
    }
    if (ref.role !== "plain") {
      const verb = ref.role === "recursive-perm" ? "changes permissions of" : "deletes"
      const target = candidates.find((candidate) => guard.critical(candidate, ref.glob, ref.sweeping))
      const contained = candidates.map((candidate) => guard.containsProtected(candidate, ref.pattern)).find((hit) => hit !== undefined)
      if (target !== undefined) add("forbidden", `${verb} ${ref.glob ? `everything in ${target}` : target}`)
      else if (contained !== undefined) add("forbidden", `${verb} ${contained}`)
    }
    if (ref.role === "force-delete" && (ref.glob || isWithin(location.real, workspace) || path.basename(location.real) === ".git")) {
      add("high", "deletes files broadly")
    }
    if (ref.role === "recursive-perm" && location.real === workspace) add("high", "changes permissions of the whole workspace")
    const planted = ref.access === "write" ? [location.real, ref.abs].map(protectedFileReason).find((reason) => reason !== undefined) : undefined
    if (planted !== undefined) {
      add("high", planted)
      protectedWrite ??= planted
    }
    scopes.push(location.scope)
    if (location.scope === "outside") add("high", ref.access === "write" ? `writes outside the workspace: ${location.display}` : `reads outside the workspace: ${location.display}`)
    const key = `${ref.access}\0${location.real}`
    if (!touched.has(key)) touched.set(key, { real: location.real, access: ref.access, scope: location.scope })
  })
  const shownReasons = risk === "low" ? [] : [...new Set(reasons.filter((reason) => reason.risk === risk).map((reason) => reason.text))].slice(0, 3)
  return {
    risk,
    authority,
    scope: widestScope(...scopes),
    summary: shownReasons.length === 0 ? `run \`${shown}\`` : `run \`${shown}\` (${shownReasons.join("; ")})`,
    paths: [...touched.values()],
    grantKey: risk === "forbidden" ? undefined : grantKeyOf(prefixes, located),
    protectedWrite
  }
}

/**
 * "The same kind of call" for an allow-for-this-session answer: the stable prefix shared by every
 * command of the line that does more than read inside the workspace (or by all of them, when none
 * does). Undefined when they differ or one has none.
 */
const grantKeyOf = (prefixes: ReadonlyArray<PrefixEntry>, located: ReadonlyArray<LocatedPath | undefined>): string | undefined => {
  if (prefixes.length === 0) return undefined
  const weak = (entry: PrefixEntry): boolean => {
    if (entry.authority !== "read") return false
    for (let i = entry.pathFrom; i < entry.pathTo; i++) if (located[i]?.scope !== "workspace") return false
    return true
  }
  const strong = prefixes.filter((entry) => !weak(entry))
  const sources = prefixes.filter((entry) => !entry.filter)
  const pool = strong.length > 0 ? strong : sources.length > 0 ? sources : prefixes
  const keys = new Set(pool.map((entry) => entry.key))
  const [only, ...others] = [...keys]
  return others.length === 0 && only !== undefined ? `bash:${only}` : undefined
}

/**
 * A git command judged read-only still runs programs when its repository's config says so
 * (core.fsmonitor, a pager, a textconv driver, a hook): then it executes, and asks.
 */
const gitConfigCheck = (classification: Classification, dirs: ReadonlyArray<string | undefined>): Classification => {
  if (dirs.length === 0 || classification.authority !== "read" || classification.risk === "forbidden") return classification
  for (const dir of new Set(dirs)) {
    const reason = dir === undefined ? "git runs in a directory only known at run time" : repositoryRunsPrograms(dir)
    if (reason !== undefined) return executes(classification, reason)
  }
  return classification
}

/** A read whose glob expands to a file name its command reads as an option (option-globs.ts) executes, and asks. */
const optionGlobCheck = (classification: Classification, globs: ReadonlyArray<OptionGlob>): Classification => {
  if (globs.length === 0 || classification.authority !== "read" || classification.risk === "forbidden") return classification
  const reason = optionGlobReason(globs)
  return reason === undefined ? classification : executes(classification, reason)
}

/** The call turns out to run programs: execute, at least medium, the reason added to the summary. */
const executes = (classification: Classification, reason: string): Classification => {
  const risk = maxRisk(classification.risk, "medium")
  const summary = classification.summary.endsWith(")") ? `${classification.summary.slice(0, -1)}; ${reason})` : `${classification.summary} (${reason})`
  return { ...classification, risk, authority: "execute", summary: risk === classification.risk && risk !== "low" ? classification.summary : summary }
}

const MAX_SHOWN = 160

/** The command as one line for the summary. */
const showCommand = (command: string): string => {
  const trimmed = command.trim()
  const [first = "", ...more] = trimmed.split("\n")
  const line = more.length === 0 ? first : `${first.trimEnd()} …`
  return clip(line, MAX_SHOWN)
}
