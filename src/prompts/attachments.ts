/**
 * Prompt attachments (SPEC P7, P9): `~/.crystal/prompt-attachments/<name>/` and
 * `<workspace>/.crystal/prompt-attachments/<name>/` (the workspace root only), each a prompt.json
 * plus work.md, plan.md and review.md (.txt accepted; an empty file counts as missing; the text is
 * kept as written, trailing newline included). When both places hold a name, the workspace
 * directory wins whole, its enabled and order included; a workspace directory that is skipped (a
 * broken manifest, say) does not hide the home one.
 *
 * Several may be enabled; they attach sorted by `order`, then by name, a missing order last.
 * Enabling appends the name and renumbers the enabled ones 0..n-1; disabling sets enabled false and
 * renumbers nothing; up and down swap within the order and rewrite it.
 *
 * Per process: `--prompt-attachments off` attaches nothing and refuses enable/disable/up/down;
 * `--prompt-attachment NAME` attaches discovered names after the enabled ones (an enabled one keeps
 * its place), and refuses enable/disable/up/down on them. Listing always works.
 */
import * as path from "node:path"
import * as Effect from "effect/Effect"
import type { CrystalPaths } from "../config/paths.ts"
import { crystalHomeRoot, workspaceRoot, type ConfinedRoot } from "../files/confined-read.ts"
import {
  listPromptDirs,
  PromptChangeError,
  readManifestOrSkip,
  manifestTitle,
  readPromptTextFiles,
  writeManifestChanges,
  type ManifestChanges,
  type PromptFile,
  type PromptManifest,
  type SkippedPromptDir
} from "./manifest.ts"
import { attachablePrompts, type AttachablePrompt } from "./names.ts"

/** Where a session looks: the Crystal home and the workspace's .crystal directory. */
export type PromptPaths = Pick<CrystalPaths, "home" | "workspaceDir">

export type AttachmentSource = "home" | "workspace"

/** What the process flags say about attachments (see selection.ts). */
export interface AttachmentFlags {
  /** --prompt-attachments off */
  readonly attachmentsOff: boolean
  /** --prompt-attachment names, deduplicated, first-seen order. */
  readonly forcedAttachments: ReadonlyArray<string>
}

export const noAttachmentFlags: AttachmentFlags = { attachmentsOff: false, forcedAttachments: [] }

/** The workspace whose `.crystal` directory `paths.workspaceDir` is: what its files must stay inside. */
export const workspaceOf = (paths: PromptPaths): string => path.dirname(paths.workspaceDir)

export const promptAttachmentDirs = (paths: PromptPaths): Readonly<Record<AttachmentSource, string>> => ({
  home: path.join(paths.home, "prompt-attachments"),
  workspace: path.join(paths.workspaceDir, "prompt-attachments")
})

export interface PromptAttachment {
  /** The directory name. */
  readonly id: string
  readonly source: AttachmentSource
  readonly dir: string
  readonly manifest: PromptManifest
  /** The manifest's name, or the id. */
  readonly title: string
  readonly description: string | undefined
  readonly enabled: boolean
  readonly order: number | undefined
  /** The non-empty work/plan/review files; a mode without one gets nothing from this attachment. */
  readonly files: Readonly<Partial<Record<AttachablePrompt, PromptFile>>>
}

export interface AttachmentDiscovery {
  readonly dirs: Readonly<Record<AttachmentSource, string>>
  /** One per name, the workspace copy winning; sorted by name. */
  readonly attachments: ReadonlyArray<PromptAttachment>
  /** Every usable copy of each source, sorted by name (shadowed home copies included). */
  readonly bySource: Readonly<Record<AttachmentSource, ReadonlyArray<PromptAttachment>>>
  readonly skipped: ReadonlyArray<SkippedPromptDir & { readonly source: AttachmentSource }>
  readonly notes: ReadonlyArray<string>
}

const byName = (a: { readonly id: string }, b: { readonly id: string }): number => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0)

/** By `order`, then by name; a missing order sorts last. */
export const byAttachmentOrder = (a: PromptAttachment, b: PromptAttachment): number => {
  if (a.order !== b.order) {
    if (a.order === undefined) return 1
    if (b.order === undefined) return -1
    return a.order - b.order
  }
  return byName(a, b)
}

const discoverIn = (
  root: string,
  source: AttachmentSource,
  confinedTo: ConfinedRoot,
  skipped: Array<SkippedPromptDir & { readonly source: AttachmentSource }>,
  notes: Array<string>
): Array<PromptAttachment> => {
  const skippedHere: Array<SkippedPromptDir> = []
  const found: Array<PromptAttachment> = []
  for (const entry of listPromptDirs(root, "prompt attachment", skippedHere, notes)) {
    const manifest = readManifestOrSkip(entry, "prompt attachment", confinedTo, skippedHere, notes)
    if (manifest === undefined) continue
    const files = readPromptTextFiles(entry.dir, attachablePrompts, confinedTo, notes)
    found.push({
      id: entry.id,
      source,
      dir: entry.dir,
      manifest,
      title: manifestTitle(manifest, entry.id),
      description: manifest.description,
      enabled: manifest.enabled,
      order: manifest.order,
      files
    })
  }
  skipped.push(...skippedHere.map((entry) => ({ ...entry, source })))
  return found
}

/** Reads both attachment directories afresh. Never writes. */
export const discoverPromptAttachments = (paths: PromptPaths): AttachmentDiscovery => {
  const dirs = promptAttachmentDirs(paths)
  const notes: Array<string> = []
  const skipped: Array<SkippedPromptDir & { readonly source: AttachmentSource }> = []
  const home = discoverIn(dirs.home, "home", crystalHomeRoot(paths.home), skipped, notes)
  // A workspace whose .crystal is the home itself has no second copy of anything.
  const workspace =
    path.resolve(dirs.workspace) === path.resolve(dirs.home) ? [] : discoverIn(dirs.workspace, "workspace", workspaceRoot(workspaceOf(paths)), skipped, notes)
  const winners = new Map<string, PromptAttachment>()
  for (const attachment of [...home, ...workspace]) winners.set(attachment.id, attachment)
  return {
    dirs,
    attachments: [...winners.values()].sort(byName),
    bySource: { home, workspace },
    skipped,
    notes
  }
}

/** The enabled attachments in their order. */
export const enabledInOrder = (attachments: ReadonlyArray<PromptAttachment>): Array<PromptAttachment> =>
  attachments.filter((attachment) => attachment.enabled).sort(byAttachmentOrder)

// ---------------------------------------------------------------------------------------------
// Selection for a session

export interface ActiveAttachment {
  readonly attachment: PromptAttachment
  /** Appended by --prompt-attachment (it is not enabled in its manifest). */
  readonly appended: boolean
}

/** The enabled attachments' texts for a prompt, in order, each bound with `bind` (the composer's shape). */
export type AttachmentTexts = (prompt: AttachablePrompt, bind: (text: string) => string) => ReadonlyArray<string>

export interface AttachmentSelection {
  readonly off: boolean
  /** In attaching order: the enabled ones by order and name, then the forced ones not enabled. */
  readonly active: ReadonlyArray<ActiveAttachment>
  /** Undefined when attachments are off (nothing is read then). */
  readonly discovery: AttachmentDiscovery | undefined
  /** Discovery notes, and forced names no longer found (after a workspace change). */
  readonly notes: ReadonlyArray<string>
  readonly texts: AttachmentTexts
  /** The same, restricted to the attachments that come from one place. */
  readonly textsFrom: (source: AttachmentSource) => AttachmentTexts
}

export const missingForcedNote = (id: string, dirs: Readonly<Record<AttachmentSource, string>>): string =>
  `The prompt attachment '${id}' given with --prompt-attachment is not in ${dirs.home} or ${dirs.workspace}; skipped.`

/**
 * The attachments a session uses, read afresh from the home and the current workspace. Call it
 * whenever a system text is composed (after /cd too): its `texts` are what the composer appends.
 */
const activeFrom = (discovery: AttachmentDiscovery, forced: ReadonlyArray<string>, notes: Array<string>): Array<ActiveAttachment> => {
  const enabled = enabledInOrder(discovery.attachments)
  const active: Array<ActiveAttachment> = enabled.map((attachment) => ({ attachment, appended: false }))
  for (const id of new Set(forced)) {
    if (enabled.some((attachment) => attachment.id === id)) continue
    const attachment = discovery.attachments.find((candidate) => candidate.id === id)
    if (attachment === undefined) notes.push(missingForcedNote(id, discovery.dirs))
    else active.push({ attachment, appended: true })
  }
  return active
}

export const selectPromptAttachments = (paths: PromptPaths, flags: AttachmentFlags = noAttachmentFlags): AttachmentSelection => {
  if (flags.attachmentsOff) return { off: true, active: [], discovery: undefined, notes: [], texts: () => [], textsFrom: () => () => [] }
  const discovery = discoverPromptAttachments(paths)
  const notes = [...discovery.notes]
  const active = activeFrom(discovery, flags.forcedAttachments, notes)
  const textsOf =
    (from: ReadonlyArray<ActiveAttachment>): AttachmentTexts =>
    (prompt, bind) =>
      from.flatMap(({ attachment }) => {
        const file = attachment.files[prompt]
        return file === undefined ? [] : [bind(file.text)]
      })
  return {
    off: false,
    active,
    discovery,
    notes,
    texts: textsOf(active),
    textsFrom: (source) => textsOf(active.filter(({ attachment }) => attachment.source === source))
  }
}

// ---------------------------------------------------------------------------------------------
// Listing (/promptattach, `crystal prompt-attachments list|show`)

export interface AttachmentRow {
  readonly id: string
  readonly title: string
  readonly description: string | undefined
  readonly source: AttachmentSource
  readonly dir: string
  readonly manifestFile: string
  readonly enabled: boolean
  readonly order: number | undefined
  /** Named by --prompt-attachment. */
  readonly forced: boolean
  /** Where it attaches in this process (0-based), or undefined when it does not. */
  readonly position: number | undefined
  /** A home copy the workspace copy overrides (only listed when asking for the home source). */
  readonly shadowed: boolean
  readonly files: Readonly<Record<AttachablePrompt, PromptFile | undefined>>
}

export interface AttachmentListing {
  readonly dirs: Readonly<Record<AttachmentSource, string>>
  /** Attaching ones first in their order, then the other enabled ones, then the rest by name. */
  readonly rows: ReadonlyArray<AttachmentRow>
  readonly off: boolean
  readonly forced: ReadonlyArray<string>
  readonly skipped: ReadonlyArray<SkippedPromptDir & { readonly source: AttachmentSource }>
  readonly notes: ReadonlyArray<string>
}

/** Every discovered attachment (the winning copies, or one source's copies), with the process flags marked. */
export const listPromptAttachments = (
  paths: PromptPaths,
  flags: AttachmentFlags = noAttachmentFlags,
  options: { readonly source?: AttachmentSource | undefined } = {}
): AttachmentListing => {
  const discovery = discoverPromptAttachments(paths)
  const notes = [...discovery.notes]
  const active = flags.attachmentsOff ? [] : activeFrom(discovery, flags.forcedAttachments, notes)
  const candidates = options.source === undefined ? discovery.attachments : discovery.bySource[options.source]
  const positionOf = (attachment: PromptAttachment): number | undefined => {
    const index = active.findIndex((active) => active.attachment.dir === attachment.dir)
    return index < 0 ? undefined : index
  }
  const winnerDirs = new Set(discovery.attachments.map((attachment) => attachment.dir))
  const rows = candidates.map(
    (attachment): AttachmentRow => ({
      id: attachment.id,
      title: attachment.title,
      description: attachment.description,
      source: attachment.source,
      dir: attachment.dir,
      manifestFile: attachment.manifest.file,
      enabled: attachment.enabled,
      order: attachment.order,
      forced: flags.forcedAttachments.includes(attachment.id),
      position: positionOf(attachment),
      shadowed: !winnerDirs.has(attachment.dir),
      files: { work: attachment.files.work, plan: attachment.files.plan, review: attachment.files.review }
    })
  )
  const rank = (row: AttachmentRow): number => (row.position !== undefined ? 0 : row.enabled ? 1 : 2)
  const attachmentOf = new Map(candidates.map((attachment) => [attachment.dir, attachment]))
  rows.sort((a, b) => {
    const byRank = rank(a) - rank(b)
    if (byRank !== 0) return byRank
    if (a.position !== undefined && b.position !== undefined) return a.position - b.position
    if (a.enabled && b.enabled) return byAttachmentOrder(attachmentOf.get(a.dir) as PromptAttachment, attachmentOf.get(b.dir) as PromptAttachment)
    return byName(a, b)
  })
  return {
    dirs: discovery.dirs,
    rows,
    off: flags.attachmentsOff,
    forced: [...new Set(flags.forcedAttachments)],
    skipped: discovery.skipped,
    notes
  }
}

// ---------------------------------------------------------------------------------------------
// Changes (/promptattach enable|disable|up|down, `crystal prompt-attachments enable|disable`)

export type AttachmentAction = "enable" | "disable" | "up" | "down"

export interface AttachmentChangeContext {
  /** False while a turn runs: every change is then refused. */
  readonly idle: boolean
  /** The process flags; omitted outside a session. */
  readonly flags?: AttachmentFlags | undefined
  /** Which copy to change (`--source`); default: the winning one. */
  readonly source?: AttachmentSource | undefined
}

export interface AttachmentChange {
  /** The manifests rewritten, in the order written. */
  readonly written: ReadonlyArray<string>
  /** One line for the operator. */
  readonly message: string
}

export const attachmentsOffMessage =
  "Prompt attachments are off for this process (--prompt-attachments off); enable, disable, up and down are refused and no prompt.json was changed."

export const forcedAttachmentMessage = (id: string, action: AttachmentAction): string =>
  `The prompt attachment '${id}' is attached by --prompt-attachment for this process; ${action} is refused and its prompt.json was not changed.`

export const busyAttachmentMessage = "A turn is running; change prompt attachments when it has finished."

const refuse = (message: string) => Effect.fail(new PromptChangeError({ message }))

const unknownAttachment = (discovery: AttachmentDiscovery, id: string, source: AttachmentSource | undefined): PromptChangeError => {
  const skipped = discovery.skipped.find((entry) => entry.id === id && (source === undefined || entry.source === source))
  if (skipped !== undefined) return new PromptChangeError({ message: `The prompt attachment '${id}' cannot be used: ${skipped.reason}` })
  const where = source === undefined ? `${discovery.dirs.home} or ${discovery.dirs.workspace}` : discovery.dirs[source]
  const known = (source === undefined ? discovery.attachments : discovery.bySource[source]).map((attachment) => attachment.id)
  return new PromptChangeError({
    message: `No prompt attachment '${id}' in ${where}${known.length > 0 ? ` (available: ${known.join(", ")})` : ""}.`
  })
}

/** Writes each manifest's changes (those already holding the values are not touched). */
const writeAll = (changes: ReadonlyArray<readonly [PromptAttachment, ManifestChanges]>) =>
  Effect.gen(function* () {
    const written: Array<string> = []
    for (const [attachment, change] of changes) {
      if (yield* writeManifestChanges(attachment.manifest, change)) written.push(attachment.manifest.file)
    }
    return written
  })

const renumber = (ordered: ReadonlyArray<PromptAttachment>): Array<readonly [PromptAttachment, ManifestChanges]> =>
  ordered.map((attachment, index) => [attachment, { order: index }] as const)

/**
 * Enables, disables or moves one attachment. Refused without writing when attachments are off, when
 * the name is forced by --prompt-attachment, or while a turn runs.
 */
export const changePromptAttachment = (
  paths: PromptPaths,
  action: AttachmentAction,
  id: string,
  context: AttachmentChangeContext
): Effect.Effect<AttachmentChange, PromptChangeError> =>
  Effect.gen(function* () {
    const flags = context.flags ?? noAttachmentFlags
    if (flags.attachmentsOff) return yield* refuse(attachmentsOffMessage)
    if (flags.forcedAttachments.includes(id)) return yield* refuse(forcedAttachmentMessage(id, action))
    if (!context.idle) return yield* refuse(busyAttachmentMessage)
    const discovery = discoverPromptAttachments(paths)
    const winner = discovery.attachments.find((attachment) => attachment.id === id)
    const target =
      context.source === undefined ? winner : discovery.bySource[context.source].find((attachment) => attachment.id === id)
    if (target === undefined) return yield* Effect.fail(unknownAttachment(discovery, id, context.source))
    const shadowedNote =
      winner !== undefined && winner.dir !== target.dir ? ` The ${winner.source} copy (${winner.dir}) takes precedence in this workspace.` : ""
    const enabled = enabledInOrder(discovery.attachments)
    switch (action) {
      case "enable": {
        if (target.enabled) return { written: [], message: `Prompt attachment '${id}' is already enabled.${shadowedNote}` }
        const others = enabled.filter((attachment) => attachment.dir !== target.dir)
        const written = yield* writeAll([...renumber(others), [target, { enabled: true, order: others.length }]])
        return { written, message: `Enabled prompt attachment '${id}' (${target.source}), position ${others.length + 1} of ${others.length + 1}.${shadowedNote}` }
      }
      case "disable": {
        if (!target.enabled) return { written: [], message: `Prompt attachment '${id}' is not enabled; nothing changed.${shadowedNote}` }
        const written = yield* writeAll([[target, { enabled: false }]])
        return { written, message: `Disabled prompt attachment '${id}' (${target.source}).${shadowedNote}` }
      }
      case "up":
      case "down": {
        const index = enabled.findIndex((attachment) => attachment.dir === target.dir)
        if (index < 0) {
          return yield* refuse(
            winner !== undefined && winner.dir !== target.dir
              ? `The ${target.source} copy of '${id}' is not the one in use; only the order of the enabled attachments in use can change.`
              : `Prompt attachment '${id}' is not enabled; only enabled attachments have a place in the order.`
          )
        }
        const other = action === "up" ? index - 1 : index + 1
        const neighbour = enabled[other]
        if (neighbour === undefined) {
          return { written: [], message: `Prompt attachment '${id}' is already ${action === "up" ? "first" : "last"}; nothing changed.` }
        }
        const swapped = [...enabled]
        swapped[other] = target
        swapped[index] = neighbour
        const written = yield* writeAll(renumber(swapped))
        return { written, message: `Moved prompt attachment '${id}' ${action}: position ${other + 1} of ${swapped.length}.` }
      }
    }
  })
