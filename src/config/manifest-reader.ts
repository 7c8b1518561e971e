/**
 * The one reader of the JSON files the operator or a repository writes beside Crystal's own
 * config: plugin.json, prompt.json, tools.json and mcp.json (config.json shares the parsing). The
 * shared path is: read the file (inside its root, src/files/confined-read.ts; plugin.json follows
 * links to the plugin's checkout) → drop a byte-order mark → refuse absurd nesting before anything
 * walks it recursively (src/files/json-depth.ts) → parse, saying where the syntax breaks → a JSON
 * object at the top level → the caller's field checks or Schema decoding, whose problems become
 * one line naming the field. Each file's own rules (fields, defaults) stay with its owner.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import type * as ParseResult from "effect/ParseResult"
import { maxManifestBytes, readConfined, readRegularFile, type ConfinedRoot } from "../files/confined-read.ts"
import { jsonTextTooDeep } from "../files/json-depth.ts"
import { codeOf, messageOf } from "../text/error-text.ts"
import { plural } from "../text/plural.ts"
import { locateJsonSyntaxError } from "./json-syntax.ts"
import { describeParseError } from "./parse-errors.ts"

/** Far deeper than any manifest or config: past it a file is refused before anything walks it recursively. */
export const maxJsonDepth = 64

/** The UTF-8 byte-order mark some editors write first. */
export const bom = "\uFEFF"

export const withoutBom = (text: string): string => (text.startsWith(bom) ? text.slice(1) : text)

export type JsonObjectParse =
  | { readonly _tag: "Object"; readonly raw: Record<string, unknown> }
  | {
      readonly _tag: "Problem"
      /** Without the file's name: "not valid JSON at line 2, column 13: unexpected …". */
      readonly problem: string
      readonly reason: "depth" | "syntax" | "shape"
    }

/** A JSON text that must hold one object (a byte-order mark is dropped first). */
export const parseJsonObject = (text: string): JsonObjectParse => {
  const body = withoutBom(text)
  if (jsonTextTooDeep(body, maxJsonDepth)) return { _tag: "Problem", reason: "depth", problem: `nests deeper than ${maxJsonDepth} levels` }
  let json: unknown
  try {
    json = JSON.parse(body)
  } catch (error) {
    const where = locateJsonSyntaxError(body)
    const problem = where === undefined ? `not valid JSON (${messageOf(error)})` : `not valid JSON at line ${where.line}, column ${where.column}: unexpected ${where.found}`
    return { _tag: "Problem", reason: "syntax", problem }
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return { _tag: "Problem", reason: "shape", problem: "expected a JSON object at the top level" }
  }
  return { _tag: "Object", raw: json as Record<string, unknown> }
}

/** The first problem, and how many more there are: "…: expected string (and 2 more problems)". */
export const firstProblem = (problems: ReadonlyArray<string>): string =>
  `${problems[0] ?? "invalid"}${problems.length > 1 ? ` (and ${plural(problems.length - 1, "more problem")})` : ""}`

/** A Schema decoding failure as that one line. */
export const decodeProblem = (error: ParseResult.ParseError): string => firstProblem(describeParseError(error))

/**
 * Where a manifest is read from: inside a root (the Crystal home, the workspace), or, for a
 * plugin's own plugin.json, as a regular file with links followed (a plugin's folder may be a link
 * to its checkout).
 */
export type ManifestSource = ConfinedRoot | "links followed"

export type ManifestText =
  | { readonly _tag: "Text"; readonly text: string }
  | { readonly _tag: "Missing" }
  /** `reason` follows the file's name ("is a FIFO, not a regular file"); `note` is the whole line. */
  | { readonly _tag: "Refused"; readonly reason: string; readonly note: string }

/** A manifest file's text, at most maxManifestBytes, never blocking on a FIFO or a device. */
export const readManifestText = (file: string, source: ManifestSource): ManifestText => {
  if (source === "links followed") {
    const read = readRegularFile(file, maxManifestBytes)
    if (read === undefined) return { _tag: "Missing" }
    return "refused" in read ? { _tag: "Refused", reason: read.refused, note: `${file} ${read.refused}` } : { _tag: "Text", text: read.bytes.toString("utf8") }
  }
  const read = readConfined(source, file, maxManifestBytes)
  if (read._tag === "Missing") return { _tag: "Missing" }
  return read._tag === "Refused" ? { _tag: "Refused", reason: read.reason, note: read.note } : { _tag: "Text", text: read.text }
}

export interface ManifestFolder {
  readonly name: string
  readonly dir: string
  /** The name keeps the folder rule of its kind; a folder that breaks it is skipped with a note. */
  readonly validName: boolean
}

/**
 * The folders under `root` that may hold a manifest (plugins, prompt sets and attachments, tool
 * sets), sorted by name; hidden entries and anything that is not a directory (a link to one
 * counts) are passed over. A missing root holds none; `unreadable` is the code of a root that
 * exists but cannot be listed.
 */
export const listManifestFolders = (
  root: string,
  isValidName: (name: string) => boolean
): { readonly folders: ReadonlyArray<ManifestFolder> } | { readonly unreadable: string } => {
  let entries: Array<fs.Dirent>
  try {
    entries = fs.readdirSync(root, { withFileTypes: true })
  } catch (error) {
    const code = codeOf(error)
    return code === "ENOENT" || code === "ENOTDIR" ? { folders: [] } : { unreadable: code }
  }
  const folders: Array<ManifestFolder> = []
  for (const entry of entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))) {
    if (entry.name.startsWith(".")) continue
    const dir = path.join(root, entry.name)
    if (!isDirectory(entry, dir)) continue
    folders.push({ name: entry.name, dir, validName: isValidName(entry.name) })
  }
  return { folders }
}

const isDirectory = (entry: fs.Dirent, full: string): boolean => {
  if (entry.isDirectory()) return true
  if (!entry.isSymbolicLink()) return false
  try {
    return fs.statSync(full).isDirectory()
  } catch {
    return false
  }
}
