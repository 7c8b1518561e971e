/**
 * `enable` / `disable` of a tool set (SPEC X5): only the `enabled` field of its tools.json changes,
 * in the file's own text (prompts/manifest.ts's editor keeps every other byte), written
 * atomically with the file's permissions. A broken or missing manifest is refused, never rewritten.
 */
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { writeFileAtomic } from "../files/atomic.ts"
import { editManifestText } from "../prompts/manifest.ts"
import { discoverToolSets, type ToolSetEntry, type ToolSource } from "./discover.ts"
import { messageOf } from "../text/error-text.ts"

export class ToolSetChangeError extends Schema.TaggedError<ToolSetChangeError>()("ToolSetChangeError", {
  message: Schema.String
}) {}

/** The set a command names: the project's when both have it (it replaces the home one) unless `source` says which. */
export const findToolSet = (entries: ReadonlyArray<ToolSetEntry>, name: string, source: ToolSource | undefined): ToolSetEntry | undefined => {
  const matching = entries.filter((entry) => entry.name === name && (source === undefined || entry.source === source))
  return matching.find((entry) => entry.source === "project") ?? matching[0]
}

export const setToolSetEnabled = (
  home: string,
  workspace: string,
  name: string,
  enabled: boolean,
  source?: ToolSource
): Effect.Effect<{ readonly entry: ToolSetEntry; readonly changed: boolean; readonly message: string }, ToolSetChangeError> =>
  Effect.gen(function* () {
    const entries = discoverToolSets(home, workspace).entries
    const entry = findToolSet(entries, name, source)
    if (entry === undefined) {
      const known = [...new Set(entries.map((candidate) => candidate.name))].join(", ") || "none"
      return yield* new ToolSetChangeError({ message: `no tool set '${name}'${source === undefined ? "" : ` in the ${source} tool sets`} (found: ${known})` })
    }
    if (entry.state === "broken" || (entry.state === "replaced" && entry.manifest === undefined)) return yield* new ToolSetChangeError({ message: `${entry.problem ?? entry.manifestFile}; nothing was written` })
    const text = entry.manifest?.text ?? ""
    const changed = yield* Effect.tryPromise({
      try: async () => {
        const current = await fsp.readFile(entry.manifestFile, "utf8")
        if (current !== text) throw new Error("it changed on disk since it was read; nothing was written, try again")
        const next = editManifestText(current, { enabled })
        if (next === current) return false
        const real = await fsp.realpath(entry.manifestFile)
        await fsp.access(real, fs.constants.W_OK).catch(() => {
          throw new Error("it is read-only; nothing was written")
        })
        const stat = await fsp.stat(real)
        await writeFileAtomic(real, next, { mode: stat.mode & 0o777 })
        return true
      },
      catch: (error) => new ToolSetChangeError({ message: `${entry.manifestFile}: cannot save (${messageOf(error)})` })
    })
    const verb = enabled ? "enabled" : "disabled"
    return { entry, changed, message: changed ? `${entry.source} tool set ${name} ${verb}` : `${entry.source} tool set ${name} was already ${verb}` }
  })
