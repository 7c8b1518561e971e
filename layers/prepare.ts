/**
 * Everything a session needs before its first turn, checked up front so a bad flag, config or
 * credential fails before anything is sent or saved.
 */
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import type { ApprovalMode } from "../src/approval/policy.ts"
import { ConfigError, type NoModelConfigured } from "../src/config/errors.ts"
import { realDirectory, type DirectoryError } from "../src/files/directories.ts"
import { scheduleOrphanedTempRemoval } from "../src/files/orphaned-temps.ts"
import { loadConfig } from "../src/config/load.ts"
import { makeCrystalPaths, type CrystalPaths } from "../src/config/paths.ts"
import { configDefaults, type Config } from "../src/config/schema.ts"
import { checkCredentials, ollamaBaseURL, resolveModel, type ModelEntry } from "../src/providers/catalog.ts"
import { checkBaseURL } from "../src/providers/base-url.ts"
import { resolveImageModel } from "../src/providers/image-model.ts"
import { defaultOllamaHost, findLocalOllamaModel } from "../src/providers/ollama-probe.ts"
import type { Mode, SessionDocument } from "../src/session/document.ts"
import { latestSessionOrUnreadable } from "../src/session/continue.ts"
import { makeSessionStore, type SessionError, type SessionStoreShape } from "../src/session/store.ts"
import { providedToolNames } from "../src/tools/tool-names.ts"
import { discoverSkills, type Skill } from "../src/skills/discover.ts"
import { resolvePromptSelection, type PromptFlags, type PromptSelection } from "../src/prompts/selection.ts"
import { loadPlugins } from "../src/plugins/load.ts"
import type { LoadResult } from "../src/plugins/loaded.ts"
import { rawHookNotes } from "../src/plugins/plugin-loader.ts"

/** What the operator asked of a session on the command line (src/cli/flags.ts parses it). */
export interface SessionRequest extends PromptFlags {
  readonly model: string | undefined
  readonly mode: Mode | undefined
  readonly approval: ApprovalMode | undefined
  readonly disableTool: ReadonlyArray<string>
  readonly resume: string | undefined
  readonly continue: boolean
  /** --trust-project-tools: the workspace's tool sets are offered without asking (nothing stored). */
  readonly trustProjectTools?: boolean
}

export interface PreparedSession {
  readonly paths: CrystalPaths
  readonly config: Config
  readonly model: ModelEntry
  readonly store: SessionStoreShape
  /** New or resumed, with the flags applied; its system text is composed when the session starts. */
  readonly document: SessionDocument
  readonly resumed: boolean
  readonly disabledTools: ReadonlyArray<string>
  /** --prompt-set, --prompt-attachments and --prompt-attachment, checked against the disk. */
  readonly prompts: PromptSelection
  /** Full texts of truncated tool outputs; `read` may open them. */
  readonly spillDir: string
  readonly maxSteps: number
  /** Empty when `"skills": false`. */
  readonly skills: ReadonlyArray<Skill>
  /** --trust-project-tools or config "trustProjectTools": true (SPEC B2). */
  readonly trustProjectTools?: boolean
  /** Things the operator should know before the first turn (skipped skills, for example). */
  readonly notes: ReadonlyArray<string>
  /** The plugins this process loaded from the home (once per process; none when absent). */
  readonly plugins?: LoadResult | undefined
}

type Env = Readonly<Record<string, string | undefined>>

/** Everything that can stop a session from being prepared: all of them are the operator's to fix (exit code 2 but SessionError). */
export type PrepareError = ConfigError | NoModelConfigured | DirectoryError | SessionError

const fail = (message: string) => Effect.fail(new ConfigError({ message }))

/** SPEC M5: names must be built-in tools; unknown ones refuse to start. Duplicates are harmless. */
export const validateDisabledTools = (
  names: ReadonlyArray<string>,
  available: ReadonlyArray<string>
): Effect.Effect<ReadonlyArray<string>, ConfigError> => {
  const unknown = names.filter((name) => !available.includes(name))
  return unknown.length === 0
    ? Effect.succeed([...new Set(names)])
    : fail(`--disable-tool: unknown tool '${unknown[0]}' (built-in tools: ${available.join(", ")})`)
}

const findSession = (store: SessionStoreShape, flags: SessionRequest, workspace: string) =>
  Effect.gen(function* () {
    if (flags.resume !== undefined && flags.continue) return yield* fail("--resume and --continue cannot be used together")
    if (flags.resume !== undefined) {
      const resumed = yield* store.load(flags.resume).pipe(
        Effect.mapError((error) => new ConfigError({ message: `--resume: ${error.message}` }))
      )
      return Option.some(resumed)
    }
    if (!flags.continue) return Option.none<SessionDocument>()
    const latest = yield* latestSessionOrUnreadable(store, workspace).pipe(
      Effect.mapError((error) => new ConfigError({ message: `--continue: ${error.message}` }))
    )
    if (Option.isNone(latest)) return yield* fail(`--continue: no earlier session for ${workspace}`)
    return latest
  })

/** With nothing configured, a running Ollama on this machine is used with its first model. */
const detectLocalOllama = (config: Config, configFile: string, env: Env) => {
  const host = ollamaBaseURL(env["OLLAMA_HOST"] ?? "") || defaultOllamaHost
  return Effect.promise(() => findLocalOllamaModel(host)).pipe(
    Effect.map((model) =>
      model === undefined ? undefined : resolveModel({ requested: { ref: `ollama/${model}`, source: host }, config, configFile, env })
    )
  )
}

/**
 * `prompts`: the prompt flags as checked when the process started. Switching sessions passes them
 * on, so a forced attachment the new workspace lacks is a note at composition, not a refusal.
 */
export const prepareSession = (
  flags: SessionRequest,
  cwd: string,
  env: Env,
  checked?: { readonly prompts: PromptSelection }
): Effect.Effect<PreparedSession, PrepareError> =>
  Effect.gen(function* () {
    const startDir = yield* realDirectory(cwd, "the current directory")
    const initialPaths = makeCrystalPaths(startDir, env)
    const loaded = yield* loadConfig(initialPaths.configFile)
    // Plugins load after config (SPEC H1) while the rest is prepared; only the first request waits for them.
    const pluginsLoading = loadPlugins(initialPaths.home)
    const config = loaded.config
    const disabledTools = yield* validateDisabledTools(flags.disableTool, providedToolNames)
    const store = makeSessionStore(initialPaths.sessionsDir)
    // Off the first request's way: a folder scan that grows with the number of sessions.
    scheduleOrphanedTempRemoval([initialPaths.sessionsDir, initialPaths.home])
    const earlier = yield* findSession(store, flags, startDir)
    const workspace = Option.isSome(earlier) ? yield* realDirectory(earlier.value.workspace, "the session's workspace") : startDir
    const paths = workspace === startDir ? initialPaths : makeCrystalPaths(workspace, env)
    const prompts = checked?.prompts ?? (yield* resolvePromptSelection(flags, paths))
    const requested =
      flags.model !== undefined
        ? { ref: flags.model, source: "--model" }
        : Option.isSome(earlier)
          ? { ref: earlier.value.model, source: `session ${earlier.value.id}` }
          : undefined
    const model = yield* resolveModel({ requested, config, configFile: paths.configFile, env }).pipe(
      Effect.catchTag("NoModelConfigured", (error) =>
        detectLocalOllama(config, paths.configFile, env).pipe(Effect.flatMap((found) => found ?? Effect.fail(error)))
      ),
      Effect.flatMap((entry) => checkBaseURL(entry, config, env)),
      Effect.flatMap((entry) => checkCredentials(entry, env))
    )
    yield* resolveImageModel(config, paths.configFile, env)
    const base = Option.isSome(earlier)
      ? earlier.value
      : store.create({ workspace, model: model.ref, mode: flags.mode ?? "work", approval: flags.approval ?? "default" })
    // Flags win over what a resumed session had (SPEC E5); neither is written anywhere but the session.
    const document: SessionDocument = {
      ...base,
      model: model.ref,
      mode: flags.mode ?? base.mode,
      approval: flags.approval ?? base.approval
    }
    const discovered =
      config.skills === false
        ? { skills: [], notes: [] }
        : discoverSkills(path.join(paths.home, "skills"), path.join(paths.workspaceDir, "skills"), { home: paths.home, workspace: paths.workspace })
    // Its notes are told with the process's first session only.
    const plugins = yield* Effect.promise(() => pluginsLoading)
    const pluginNotes = checked === undefined ? [...plugins.notes, ...rawHookNotes(plugins.plugins)] : []
    return {
      paths,
      config,
      skills: discovered.skills,
      notes: [...discovered.notes, ...pluginNotes],
      plugins,
      model,
      store,
      document,
      resumed: Option.isSome(earlier),
      disabledTools,
      prompts,
      spillDir: path.join(paths.spillDir, document.id),
      maxSteps: config.maxSteps ?? configDefaults.maxSteps,
      trustProjectTools: flags.trustProjectTools === true || config.trustProjectTools === true
    } satisfies PreparedSession
  })
