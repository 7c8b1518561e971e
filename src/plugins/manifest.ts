/**
 * plugin.json, the manifest of a plugin folder `~/.crystal/plugins/<folder>/` (SPEC H1, docs/plugins.md):
 * `{ "entry": "index.js", "enabled": true }`.
 *
 * `entry` is required: a relative path to a `.js`, `.mjs` or `.ts` file inside the folder, and still
 * inside it once symbolic links are resolved. `enabled` is true or false; omitted means on (the
 * folder's presence in the operator's own home is the opt-in, as for tool sets). Unknown fields are
 * kept. A missing, unreadable or invalid manifest is one problem naming the file and the field; the
 * folder is then skipped and nothing here ever creates, repairs or touches the file.
 *
 * Changing `enabled` edits only that value in the file's own text (every other byte stays) and
 * writes atomically, refused when the file changed since it was read.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Schema from "effect/Schema"
import * as Effect from "effect/Effect"
import { parseJsonObject, readManifestText } from "../config/manifest-reader.ts"
import { isValidPromptDirName, promptDirNameRule, saveManifestChanges } from "../prompts/manifest.ts"
import { codeOf, messageOf } from "../text/error-text.ts"
import { isStrictlyWithin } from "../files/within.ts"

/** A refused plugin command (an unknown or broken plugin) or a failed manifest write; the message is for the operator. */
export class PluginError extends Schema.TaggedError<PluginError>()("PluginError", {
  message: Schema.String
}) {}

export const pluginManifestFileName = "plugin.json"
export const pluginEntryExtensions = [".js", ".mjs", ".ts"] as const

/** Plugin folder names follow the rule of tool sets and prompt sets. */
export const isValidPluginFolderName = isValidPromptDirName
export const pluginFolderNameRule = promptDirNameRule

export interface PluginManifest {
  readonly file: string
  /** The file's text exactly as read (a change is refused when the file no longer says this). */
  readonly text: string
  /** The JSON object as written, unknown fields included. */
  readonly raw: Readonly<Record<string, unknown>>
  /** `entry` as written. */
  readonly entry: string
  /** The entry file's real path (symbolic links resolved), inside the folder's real path. */
  readonly entryPath: string
  /** Omitted means on. */
  readonly enabled: boolean
}

export type PluginManifestRead =
  | { readonly _tag: "Manifest"; readonly manifest: PluginManifest }
  | { readonly _tag: "Problem"; readonly file: string; readonly problem: string }

const entryRule = `a relative path to a ${pluginEntryExtensions.join(", ").replace(/, ([^,]*)$/, " or $1")} file inside the plugin's folder`

const describeValue = (value: unknown): string => {
  if (value === null) return "null"
  if (Array.isArray(value)) return "an array"
  if (typeof value === "object") return "an object"
  if (typeof value === "string") return value.length > 60 ? `a string of ${value.length} characters` : JSON.stringify(value)
  return String(value)
}

const hasEntryExtension = (file: string): boolean => (pluginEntryExtensions as ReadonlyArray<string>).includes(path.extname(file).toLowerCase())

type Fields = { readonly _tag: "Fields"; readonly raw: Record<string, unknown>; readonly entry: string; readonly enabled: boolean }

/** Validates a manifest's JSON and fields (not the entry file itself); `problem` names the field. */
export const parsePluginManifestText = (text: string): Fields | { readonly _tag: "Problem"; readonly problem: string } => {
  const parsed = parseJsonObject(text)
  if (parsed._tag === "Problem") return { _tag: "Problem", problem: parsed.problem }
  const raw = parsed.raw
  const entry = raw["entry"]
  if (entry === undefined) return { _tag: "Problem", problem: `"entry" is missing (expected ${entryRule})` }
  if (typeof entry !== "string" || entry.trim() === "" || path.isAbsolute(entry) || !hasEntryExtension(entry)) {
    return { _tag: "Problem", problem: `"entry" must be ${entryRule} (got ${describeValue(entry)})` }
  }
  const enabled = raw["enabled"]
  if (enabled !== undefined && typeof enabled !== "boolean") return { _tag: "Problem", problem: `"enabled" must be true or false (got ${describeValue(enabled)})` }
  return { _tag: "Fields", raw, entry, enabled: enabled !== false }
}

/** Where `entry` leads from the folder `dir`: its real path, or what is wrong with it. */
const resolveEntry = (dir: string, entry: string): { readonly path: string } | { readonly problem: string } => {
  const named = path.resolve(dir, entry)
  if (!isStrictlyWithin(dir, named)) return { problem: `"entry" must stay inside the plugin's folder (got ${JSON.stringify(entry)})` }
  let realDir: string
  let realEntry: string
  try {
    realDir = fs.realpathSync(dir)
    realEntry = fs.realpathSync(named)
  } catch (error) {
    const code = codeOf(error)
    return { problem: code === "ENOENT" ? `"entry" names a file that does not exist (${named})` : `"entry" cannot be resolved (${code})` }
  }
  if (!isStrictlyWithin(realDir, realEntry)) {
    return { problem: `"entry" leads outside the plugin's folder through a symbolic link (${JSON.stringify(entry)} is ${realEntry})` }
  }
  if (!hasEntryExtension(realEntry)) return { problem: `"entry" must be ${entryRule} (${JSON.stringify(entry)} is ${realEntry})` }
  try {
    if (!fs.statSync(realEntry).isFile()) return { problem: `"entry" must name a file (${realEntry} is not one)` }
  } catch (error) {
    return { problem: `"entry" cannot be read (${codeOf(error)})` }
  }
  return { path: realEntry }
}

/** Reads and checks `<dir>/plugin.json` and where its entry leads. Never writes anything. */
export const readPluginManifest = (dir: string): PluginManifestRead => {
  const file = path.join(dir, pluginManifestFileName)
  const read = readManifestText(file, "links followed")
  if (read._tag !== "Text") return { _tag: "Problem", file, problem: read._tag === "Missing" ? "missing" : read.reason }
  const text = read.text
  const fields = parsePluginManifestText(text)
  if (fields._tag === "Problem") return { _tag: "Problem", file, problem: fields.problem }
  const entry = resolveEntry(dir, fields.entry)
  if ("problem" in entry) return { _tag: "Problem", file, problem: entry.problem }
  return { _tag: "Manifest", manifest: { file, text, raw: fields.raw, entry: fields.entry, entryPath: entry.path, enabled: fields.enabled } }
}

/**
 * Writes `enabled` into the manifest, atomically, keeping every other byte and the file's
 * permissions (writing through a symbolic link). Refused when the file no longer holds the text it
 * was read with, or is read-only. False when it already said so (the file is not touched); an
 * omitted `enabled` already means true.
 */
export const writePluginEnabled = (manifest: PluginManifest, enabled: boolean): Effect.Effect<boolean, PluginError> =>
  Effect.tryPromise({
    try: async () => (manifest.enabled === enabled ? false : saveManifestChanges(manifest.file, manifest.text, { enabled })),
    catch: (error) => new PluginError({ message: `${manifest.file}: cannot save (${messageOf(error)})` })
  })
