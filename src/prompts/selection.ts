/**
 * The prompt flags of a process (SPEC P9), checked against the disk at start-up:
 * `--prompt-set NAME` must name a usable set (or "default"); `--prompt-attachment NAME` names must
 * be discovered in the home or the start-up workspace, and cannot be combined with
 * `--prompt-attachments off`. The flags never write prompt.json or config.json.
 */
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { ConfigError } from "../config/errors.ts"
import { discoverPromptAttachments, selectPromptAttachments, workspaceOf, type AttachmentFlags, type AttachmentTexts, type PromptPaths } from "./attachments.ts"
import { isValidPromptDirName, promptDirNameRule } from "./manifest.ts"
import { crystalHomeRoot, workspaceRoot } from "../files/confined-read.ts"
import type { PromptDir, PromptLocations } from "./resolver.ts"
import { defaultPromptSetName, discoverPromptSets, selectPromptSet } from "./sets.ts"

export interface PromptSelection extends AttachmentFlags {
  /** --prompt-set: a set's directory name or "default"; undefined = the enabled manifest decides. */
  readonly promptSet: string | undefined
}

/** No prompt flags: the manifests decide everything. */
export const noPromptSelection: PromptSelection = { promptSet: undefined, attachmentsOff: false, forcedAttachments: [] }

/** The prompt flags as parsed (SessionFlags has these fields). */
export interface PromptFlags {
  readonly promptSet: string | undefined
  readonly promptAttachments: "on" | "off"
  readonly promptAttachment: ReadonlyArray<string>
}

const fail = (message: string) => Effect.fail(new ConfigError({ message }))

/** Checks the prompt flags against the home and the start-up workspace. Reads only. */
export const resolvePromptSelection = (flags: PromptFlags, paths: PromptPaths): Effect.Effect<PromptSelection, ConfigError> =>
  Effect.gen(function* () {
    const forcedAttachments = [...new Set(flags.promptAttachment)]
    const attachmentsOff = flags.promptAttachments === "off"
    if (attachmentsOff && forcedAttachments.length > 0) {
      return yield* fail("--prompt-attachment cannot be combined with --prompt-attachments off")
    }
    const promptSet = flags.promptSet
    if (promptSet !== undefined && promptSet !== defaultPromptSetName) {
      if (!isValidPromptDirName(promptSet)) return yield* fail(`--prompt-set: '${promptSet}' is not a prompt set name (${promptDirNameRule})`)
      const discovery = discoverPromptSets(paths.home)
      if (!discovery.sets.some((set) => set.id === promptSet)) {
        const skipped = discovery.skipped.find((entry) => entry.id === promptSet)
        if (skipped !== undefined) return yield* fail(`--prompt-set: the prompt set '${promptSet}' cannot be used: ${skipped.reason}`)
        const known = [defaultPromptSetName, ...discovery.sets.map((set) => set.id)].join(", ")
        return yield* fail(`--prompt-set: no prompt set '${promptSet}' in ${discovery.dir} (available: ${known})`)
      }
    }
    if (forcedAttachments.length > 0) {
      const invalid = forcedAttachments.find((id) => !isValidPromptDirName(id))
      if (invalid !== undefined) return yield* fail(`--prompt-attachment: '${invalid}' is not a prompt attachment name (${promptDirNameRule})`)
      const discovery = discoverPromptAttachments(paths)
      for (const id of forcedAttachments) {
        if (discovery.attachments.some((attachment) => attachment.id === id)) continue
        const skipped = discovery.skipped.find((entry) => entry.id === id)
        if (skipped !== undefined) return yield* fail(`--prompt-attachment: the prompt attachment '${id}' cannot be used: ${skipped.reason}`)
        const known = discovery.attachments.map((attachment) => attachment.id)
        return yield* fail(
          `--prompt-attachment: no prompt attachment '${id}' in ${discovery.dirs.home} or ${discovery.dirs.workspace}` +
            (known.length > 0 ? ` (available: ${known.join(", ")})` : "")
        )
      }
    }
    return { promptSet, attachmentsOff, forcedAttachments }
  })

/** What one composition of a session's system texts draws on, read afresh from the disk. */
export interface PromptSources {
  readonly locations: PromptLocations
  readonly attachments: AttachmentTexts
  /**
   * What the reviewer of --approval review may read: the same minus everything the workspace
   * supplies (its prompt files and its attachments). A repository must not be able to talk the
   * reviewer into allowing a call, just as it never sees the workspace instructions.
   */
  readonly reviewer: { readonly locations: PromptLocations; readonly attachments: AttachmentTexts }
  /** The prompt set in use ("default" for the built-in texts). */
  readonly setName: string
  /** Skipped directories, a conflict of enabled sets, forced names gone missing. */
  readonly notes: ReadonlyArray<string>
}

/**
 * The prompt files, the prompt set and the attachments in force now (SPEC P4–P9). Called at every
 * composition, so /promptset, `crystal promptsets enable` or an edited file apply to the next one.
 */
export const promptSources = (paths: PromptPaths, selection: PromptSelection): PromptSources => {
  const set = selectPromptSet(paths.home, selection.promptSet)
  const attachments = selectPromptAttachments(paths, selection)
  const homePrompts: PromptDir = { dir: path.join(paths.home, "prompts"), root: crystalHomeRoot(paths.home) }
  const workspacePrompts: PromptDir = { dir: path.join(paths.workspaceDir, "prompts"), root: workspaceRoot(workspaceOf(paths)) }
  return {
    locations: { homePrompts, workspacePrompts, set: set.lookup },
    attachments: attachments.texts,
    reviewer: {
      locations: { homePrompts, workspacePrompts: undefined, set: set.lookup },
      attachments: attachments.textsFrom("home")
    },
    setName: set.name,
    notes: [...set.notes, ...attachments.notes]
  }
}
