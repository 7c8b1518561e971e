/**
 * Prompt sets (SPEC P5, P6, P9): `~/.crystal/promptsets/<name>/` directories, home only, each with
 * a prompt.json and any subset of the nine named prompt files (NAME.md, or NAME.txt). `default` is
 * the virtual set of built-in texts. A set's missing or empty file falls back, per name, to the
 * built-in text.
 *
 * At most one set is enabled. Enabling one writes `enabled: true` on it and `enabled: false` on
 * every other enabled set; disabling it, or choosing `default`, clears every enabled flag. Two or
 * more sets enabled by hand means none is used: a conflict note, and the built-in texts.
 * `--prompt-set NAME` forces a set for the process (even a disabled one; `default` forces the
 * built-ins) and makes switching refuse without writing anything.
 */
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { crystalHomeRoot } from "../files/confined-read.ts"
import { promptNames, type AttachablePrompt, type PromptName } from "./names.ts"
import {
  listPromptDirs,
  PromptChangeError,
  readManifestOrSkip,
  manifestTitle,
  readPromptTextFiles,
  writeManifestChanges,
  type PromptFile,
  type PromptManifest,
  type SkippedPromptDir
} from "./manifest.ts"

/** The virtual set of built-in texts. */
export const defaultPromptSetName = "default"
export const defaultPromptSetTitle = "Built-in prompts"

export const promptSetsDir = (home: string): string => path.join(home, "promptsets")

export interface PromptSet {
  /** The directory name. */
  readonly id: string
  readonly dir: string
  readonly manifest: PromptManifest
  /** The manifest's name, or the id. */
  readonly title: string
  readonly description: string | undefined
  readonly enabled: boolean
  /** The set's non-empty files; a name absent here falls back to the built-in text. */
  readonly files: Readonly<Partial<Record<PromptName, PromptFile>>>
}

export interface PromptSetDiscovery {
  readonly dir: string
  /** Usable sets, sorted by id. */
  readonly sets: ReadonlyArray<PromptSet>
  /** Directories passed over, with the note saying why. */
  readonly skipped: ReadonlyArray<SkippedPromptDir>
  readonly notes: ReadonlyArray<string>
}

/** Reads ~/.crystal/promptsets afresh. Never writes. */
export const discoverPromptSets = (home: string): PromptSetDiscovery => {
  const dir = promptSetsDir(home)
  const root = crystalHomeRoot(home)
  const notes: Array<string> = []
  const skipped: Array<SkippedPromptDir> = []
  const sets: Array<PromptSet> = []
  for (const entry of listPromptDirs(dir, "prompt set", skipped, notes)) {
    if (entry.id === defaultPromptSetName) {
      const reason = `${entry.dir}: "${defaultPromptSetName}" is the reserved name of the built-in prompts`
      const note = `${reason}; this directory is skipped.`
      skipped.push({ ...entry, reason, note })
      notes.push(note)
      continue
    }
    const manifest = readManifestOrSkip(entry, "prompt set", root, skipped, notes)
    if (manifest === undefined) continue
    const files = readPromptTextFiles(entry.dir, promptNames, root, notes)
    sets.push({
      id: entry.id,
      dir: entry.dir,
      manifest,
      title: manifestTitle(manifest, entry.id),
      description: manifest.description,
      enabled: manifest.enabled,
      files
    })
  }
  return { dir, sets, skipped, notes }
}

/** The selected set's text for a name, when it has a non-empty file for it (PromptLocations.set). */
export type PromptSetLookup = (name: PromptName) => { readonly set: string; readonly file: string; readonly text: string } | undefined

export interface PromptSetSelection {
  /** The set in use; undefined = the built-in texts. */
  readonly set: PromptSet | undefined
  /** What the status bar shows: the set's directory name, or "default". */
  readonly name: string
  /** Chosen by --prompt-set rather than by the manifests. */
  readonly forced: boolean
  /** The ids of the sets enabled together by hand (none of them is used); empty without a conflict. */
  readonly conflict: ReadonlyArray<string>
  readonly discovery: PromptSetDiscovery
  /** Discovery notes, then the conflict or a missing forced set. */
  readonly notes: ReadonlyArray<string>
  readonly lookup: PromptSetLookup
}

const conflictNote = (dir: string, ids: ReadonlyArray<string>): string =>
  `Prompt sets ${ids.map((id) => `'${id}'`).join(", ")} in ${dir} are all enabled in their prompt.json; at most one may be. ` +
  `None is used (built-in prompts) until one is chosen with /promptset NAME or \`crystal promptsets enable NAME\`.`

const lookupIn =
  (set: PromptSet | undefined): PromptSetLookup =>
  (name) => {
    const file = set?.files[name]
    return set === undefined || file === undefined ? undefined : { set: set.id, file: file.file, text: file.text }
  }

/**
 * The set a session uses, read afresh: the forced one (`--prompt-set`; "default" = built-ins), else
 * the one enabled set, else the built-ins. Call it whenever the system text is composed.
 */
export const selectPromptSet = (home: string, forced: string | undefined): PromptSetSelection => {
  const discovery = discoverPromptSets(home)
  const notes = [...discovery.notes]
  const make = (set: PromptSet | undefined, conflict: ReadonlyArray<string> = []): PromptSetSelection => ({
    set,
    name: set?.id ?? defaultPromptSetName,
    forced: forced !== undefined,
    conflict,
    discovery,
    notes,
    lookup: lookupIn(set)
  })
  if (forced !== undefined) {
    if (forced === defaultPromptSetName) return make(undefined)
    const set = discovery.sets.find((candidate) => candidate.id === forced)
    if (set === undefined) notes.push(`The prompt set '${forced}' given with --prompt-set is no longer in ${discovery.dir}; the built-in prompts are used.`)
    return make(set)
  }
  const enabled = discovery.sets.filter((set) => set.enabled)
  if (enabled.length > 1) {
    const ids = enabled.map((set) => set.id)
    notes.push(conflictNote(discovery.dir, ids))
    return make(undefined, ids)
  }
  return make(enabled[0])
}

// ---------------------------------------------------------------------------------------------
// Listing (/promptset, `crystal promptsets list|show`)

export interface PromptSetRow {
  /** The directory name, or "default" for the built-in set (listed first). */
  readonly id: string
  readonly title: string
  readonly description: string | undefined
  readonly builtin: boolean
  /** What the set's prompt.json says (for "default": true when no set is enabled). */
  readonly enabled: boolean
  /** The set this process uses. */
  readonly selected: boolean
  readonly dir: string | undefined
  readonly manifestFile: string | undefined
  /** Per named prompt, the set's file; undefined = the built-in text. */
  readonly files: Readonly<Partial<Record<PromptName, PromptFile>>>
  /** The same for Work, Plan and Review, spelled out. */
  readonly sources: Readonly<Record<AttachablePrompt, PromptFile | undefined>>
}

export interface PromptSetListing {
  readonly dir: string
  readonly rows: ReadonlyArray<PromptSetRow>
  /** The id in use ("default" for the built-ins). */
  readonly selected: string
  readonly forced: boolean
  readonly conflict: ReadonlyArray<string>
  /** Directories passed over, with the note saying why. */
  readonly skipped: ReadonlyArray<SkippedPromptDir>
  readonly notes: ReadonlyArray<string>
}

const sourcesOf = (files: Readonly<Partial<Record<PromptName, PromptFile>>>): Record<AttachablePrompt, PromptFile | undefined> => ({
  work: files.work,
  plan: files.plan,
  review: files.review
})

/** Every set with its title, description, flags and the source of its Work, Plan and Review. */
export const listPromptSets = (home: string, forced?: string | undefined): PromptSetListing => {
  const selection = selectPromptSet(home, forced)
  const anyEnabled = selection.discovery.sets.some((set) => set.enabled)
  const rows: Array<PromptSetRow> = [
    {
      id: defaultPromptSetName,
      title: defaultPromptSetTitle,
      description: "The texts that ship with Crystal",
      builtin: true,
      enabled: !anyEnabled,
      selected: selection.set === undefined,
      dir: undefined,
      manifestFile: undefined,
      files: {},
      sources: sourcesOf({})
    },
    ...selection.discovery.sets.map(
      (set): PromptSetRow => ({
        id: set.id,
        title: set.title,
        description: set.description,
        builtin: false,
        enabled: set.enabled,
        selected: selection.set?.id === set.id,
        dir: set.dir,
        manifestFile: set.manifest.file,
        files: set.files,
        sources: sourcesOf(set.files)
      })
    )
  ]
  return {
    dir: selection.discovery.dir,
    rows,
    selected: selection.name,
    forced: selection.forced,
    conflict: selection.conflict,
    skipped: selection.discovery.skipped,
    notes: selection.notes
  }
}

// ---------------------------------------------------------------------------------------------
// Switching (/promptset NAME, `crystal promptsets enable|disable`)

export interface PromptSetChange {
  /** The set now selected by the manifests ("default" for the built-ins). */
  readonly selected: string
  /** The manifests rewritten, in the order written. */
  readonly written: ReadonlyArray<string>
  /** One line for the operator. */
  readonly message: string
}

export interface PromptSetSwitchContext {
  /** --prompt-set, when given: switching is then refused. */
  readonly forced: string | undefined
  /** False while a turn runs: switching is then refused. */
  readonly idle: boolean
}

const refuse = (message: string) => Effect.fail(new PromptChangeError({ message }))

const unknownSet = (discovery: PromptSetDiscovery, id: string): PromptChangeError => {
  const skipped = discovery.skipped.find((entry) => entry.id === id)
  if (skipped !== undefined) return new PromptChangeError({ message: `The prompt set '${id}' cannot be used: ${skipped.reason}` })
  const known = [defaultPromptSetName, ...discovery.sets.map((set) => set.id)].join(", ")
  return new PromptChangeError({ message: `No prompt set '${id}' in ${discovery.dir} (available: ${known}).` })
}

const quoteList = (ids: ReadonlyArray<string>): string => ids.map((id) => `'${id}'`).join(", ")

/** Writes false on every enabled set but `keep`, then true on `keep` (a crash between leaves none enabled, never two). */
const applyEnabled = (discovery: PromptSetDiscovery, keep: PromptSet | undefined) =>
  Effect.gen(function* () {
    const written: Array<string> = []
    const cleared: Array<string> = []
    for (const set of discovery.sets) {
      if (!set.enabled || set.id === keep?.id) continue
      if (yield* writeManifestChanges(set.manifest, { enabled: false })) written.push(set.manifest.file)
      cleared.push(set.id)
    }
    if (keep !== undefined && (yield* writeManifestChanges(keep.manifest, { enabled: true }))) written.push(keep.manifest.file)
    return { written, cleared }
  })

/** Enables a set ("default": clears every enabled flag). No checks of process state: the command line's entry. */
export const enablePromptSet = (home: string, id: string): Effect.Effect<PromptSetChange, PromptChangeError> =>
  Effect.gen(function* () {
    const discovery = discoverPromptSets(home)
    if (id === defaultPromptSetName) {
      const { written, cleared } = yield* applyEnabled(discovery, undefined)
      const message =
        cleared.length === 0
          ? `No prompt set was enabled; the built-in prompts are in use.`
          : `Disabled ${quoteList(cleared)}; the built-in prompts are in use.`
      return { selected: defaultPromptSetName, written, message }
    }
    const set = discovery.sets.find((candidate) => candidate.id === id)
    if (set === undefined) return yield* Effect.fail(unknownSet(discovery, id))
    const { written, cleared } = yield* applyEnabled(discovery, set)
    const message =
      written.length === 0
        ? `Prompt set '${id}' is already enabled.`
        : `Enabled prompt set '${id}'${cleared.length > 0 ? ` (disabled ${quoteList(cleared)})` : ""}.`
    return { selected: id, written, message }
  })

/**
 * Disables a set: disabling an enabled set clears every enabled flag (the built-ins are then used);
 * a set that is not enabled is left alone.
 */
export const disablePromptSet = (home: string, id: string): Effect.Effect<PromptSetChange, PromptChangeError> =>
  Effect.gen(function* () {
    const discovery = discoverPromptSets(home)
    if (id === defaultPromptSetName) {
      return yield* refuse(`'${defaultPromptSetName}' is the built-in set and cannot be disabled; enable another set instead.`)
    }
    const set = discovery.sets.find((candidate) => candidate.id === id)
    if (set === undefined) return yield* Effect.fail(unknownSet(discovery, id))
    const enabled = discovery.sets.filter((candidate) => candidate.enabled)
    if (!set.enabled) {
      const current = enabled.length === 1 ? enabled[0]?.id ?? defaultPromptSetName : defaultPromptSetName
      return { selected: current, written: [], message: `Prompt set '${id}' is not enabled; nothing changed.` }
    }
    const { written, cleared } = yield* applyEnabled(discovery, undefined)
    const others = cleared.filter((other) => other !== id)
    return {
      selected: defaultPromptSetName,
      written,
      message: `Disabled prompt set '${id}'${others.length > 0 ? ` (and ${quoteList(others)})` : ""}; the built-in prompts are in use.`
    }
  })

/** The refusal /promptset gives while --prompt-set is in force. */
export const forcedPromptSetMessage = (forced: string): string =>
  `The prompt set is fixed to '${forced}' by --prompt-set for this process; switching is refused and no prompt.json was changed.`

export const busyPromptSetMessage = "A turn is running; switch the prompt set when it has finished."

/**
 * `/promptset NAME`: refused (nothing written) while --prompt-set is in force or a turn runs;
 * otherwise enables NAME, or clears every enabled flag for "default". The caller then replaces the
 * active system message and rebuilds Review. Never writes config.json.
 */
export const switchPromptSet = (
  home: string,
  id: string,
  context: PromptSetSwitchContext
): Effect.Effect<PromptSetChange, PromptChangeError> => {
  if (context.forced !== undefined) return refuse(forcedPromptSetMessage(context.forced))
  if (!context.idle) return refuse(busyPromptSetMessage)
  return enablePromptSet(home, id)
}
