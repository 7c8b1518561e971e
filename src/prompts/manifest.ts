/**
 * prompt.json, the manifest of a prompt set or a prompt attachment directory (SPEC P5, P7), and the
 * directory conventions both share.
 *
 * Reading validates: `name` (a string of at most 80 characters), `description` (at most 280),
 * `enabled` (true or false; omitted means off) and, for attachments, `order` (an integer). Unknown
 * fields are kept. A missing, unreadable or invalid manifest is an English note naming the file and
 * the problem, and its directory is skipped; nothing here ever creates, repairs or touches it.
 *
 * Writing changes exactly the fields asked for (enabled, order) in the file's own text: every other
 * byte — unknown fields, key order, indentation — stays as it was. The write is atomic, and refused
 * when the file changed since it was read.
 */
import * as fs from "node:fs"
import * as fsp from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { bom, firstProblem, listManifestFolders, parseJsonObject, readManifestText, withoutBom } from "../config/manifest-reader.ts"
import { writeFileAtomic } from "../files/atomic.ts"
import { maxInstructionBytes, readConfined, type ConfinedRoot } from "../files/confined-read.ts"
import { messageOf } from "../text/error-text.ts"

/** A refused or failed change to a prompt set or attachment; the message is for the operator. */
export class PromptChangeError extends Schema.TaggedError<PromptChangeError>()("PromptChangeError", {
  message: Schema.String
}) {}

export type ManifestKind = "prompt set" | "prompt attachment"

export const manifestFileName = "prompt.json"
export const maxTitleLength = 80
export const maxDescriptionLength = 280

/**
 * Directory names of prompt sets and attachments (their ids): 1–64 characters, a letter first, then
 * letters, digits, `_`, `.` or `-`.
 */
export const promptDirNamePattern = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/
export const isValidPromptDirName = (name: string): boolean => promptDirNamePattern.test(name)
export const promptDirNameRule = "1–64 characters: a letter, then letters, digits, '_', '.' or '-'"

export interface PromptManifest {
  readonly file: string
  /** The file's text exactly as read (a change is refused when the file no longer says this). */
  readonly text: string
  /** The JSON object as written, unknown fields included. */
  readonly raw: Readonly<Record<string, unknown>>
  readonly name: string | undefined
  readonly description: string | undefined
  /** Omitted means off. */
  readonly enabled: boolean
  /** Attachments only; undefined when omitted (sorted last). */
  readonly order: number | undefined
}

export type ManifestRead =
  | { readonly _tag: "Manifest"; readonly manifest: PromptManifest }
  | { readonly _tag: "Problem"; readonly file: string; readonly problem: string }

const characters = (text: string): number => [...text].length

const describeValue = (value: unknown): string => {
  if (value === null) return "null"
  if (Array.isArray(value)) return "an array"
  if (typeof value === "object") return "an object"
  if (typeof value === "string") return characters(value) > 40 ? `a string of ${characters(value)} characters` : JSON.stringify(value)
  return String(value)
}

const fieldProblems = (raw: Readonly<Record<string, unknown>>, kind: ManifestKind): Array<string> => {
  const problems: Array<string> = []
  const text = (field: string, max: number) => {
    const value = raw[field]
    if (value === undefined) return
    if (typeof value !== "string") problems.push(`"${field}" must be a string (got ${describeValue(value)})`)
    else if (characters(value) > max) problems.push(`"${field}" must be at most ${max} characters (got ${characters(value)})`)
  }
  text("name", maxTitleLength)
  text("description", maxDescriptionLength)
  const enabled = raw["enabled"]
  if (enabled !== undefined && typeof enabled !== "boolean") problems.push(`"enabled" must be true or false (got ${describeValue(enabled)})`)
  if (kind === "prompt attachment") {
    const order = raw["order"]
    if (order !== undefined && !(typeof order === "number" && Number.isSafeInteger(order))) {
      problems.push(`"order" must be an integer (got ${describeValue(order)})`)
    }
  }
  return problems
}

/** Validates a manifest's text; `problem` is one line naming what is wrong (the caller names the file). */
export const parseManifestText = (file: string, text: string, kind: ManifestKind): ManifestRead => {
  const parsed = parseJsonObject(text)
  if (parsed._tag === "Problem") return { _tag: "Problem", file, problem: parsed.problem }
  const raw = parsed.raw
  const problems = fieldProblems(raw, kind)
  if (problems.length > 0) return { _tag: "Problem", file, problem: firstProblem(problems) }
  const order = raw["order"]
  return {
    _tag: "Manifest",
    manifest: {
      file,
      text,
      raw,
      name: raw["name"] as string | undefined,
      description: raw["description"] as string | undefined,
      enabled: raw["enabled"] === true,
      order: kind === "prompt attachment" && typeof order === "number" ? order : undefined
    }
  }
}

/**
 * Reads `<dir>/prompt.json` as a regular file inside `root` (the Crystal home or the workspace it
 * was found in: src/files/confined-read.ts). Never writes anything.
 */
export const readManifest = (dir: string, kind: ManifestKind, root: ConfinedRoot): ManifestRead => {
  const file = path.join(dir, manifestFileName)
  const read = readManifestText(file, root)
  if (read._tag === "Missing") return { _tag: "Problem", file, problem: "missing" }
  if (read._tag === "Refused") return { _tag: "Problem", file, problem: read.reason }
  return parseManifestText(file, read.text, kind)
}

/** A directory found where prompt sets or attachments live, but not used. */
export interface SkippedPromptDir {
  readonly id: string
  readonly dir: string
  /** What is wrong, naming the file: "<file>: <problem>". */
  readonly reason: string
  /** The note reported for it (the reason, and that it was skipped). */
  readonly note: string
}

export interface PromptDirEntry {
  readonly id: string
  readonly dir: string
}

/**
 * The directories under `root`, sorted by name. Hidden entries and plain files are passed over in
 * silence; a directory whose name breaks the rule is skipped with a note. A missing root is empty.
 */
export const listPromptDirs = (
  root: string,
  kind: ManifestKind,
  skipped: Array<SkippedPromptDir>,
  notes: Array<string>
): Array<PromptDirEntry> => {
  const listed = listManifestFolders(root, isValidPromptDirName)
  if ("unreadable" in listed) {
    notes.push(`${root}: cannot be read (${listed.unreadable}); no ${kind}s from there.`)
    return []
  }
  const entries: Array<PromptDirEntry> = []
  for (const { name: id, dir, validName } of listed.folders) {
    if (validName) {
      entries.push({ id, dir })
      continue
    }
    const reason = `${dir}: the name of a ${kind} must be ${promptDirNameRule}`
    const note = `${reason}; skipped.`
    skipped.push({ id, dir, reason, note })
    notes.push(note)
  }
  return entries
}

/** Reads a directory's manifest; a problem becomes a note and a skipped entry, and undefined. */
export const readManifestOrSkip = (
  entry: PromptDirEntry,
  kind: ManifestKind,
  root: ConfinedRoot,
  skipped: Array<SkippedPromptDir>,
  notes: Array<string>
): PromptManifest | undefined => {
  const read = readManifest(entry.dir, kind, root)
  if (read._tag === "Manifest") return read.manifest
  const reason = `${read.file}: ${read.problem}`
  const note = `${reason}; ${kind} '${entry.id}' skipped.`
  skipped.push({ ...entry, reason, note })
  notes.push(note)
  return undefined
}

export interface PromptFile {
  readonly file: string
  readonly text: string
}

/**
 * `<dir>/<base>.md`, else `<dir>/<base>.txt`: the first that exists and holds more than white space,
 * text as written (a UTF-8 byte-order mark dropped, the trailing newline kept). Read only as a
 * regular file inside `root`; a refused or unreadable file is a note and counts as missing.
 */
export const readPromptTextFile = (dir: string, base: string, root: ConfinedRoot, notes: Array<string>): PromptFile | undefined => {
  for (const fileName of [`${base}.md`, `${base}.txt`]) {
    const read = readConfined(root, path.join(dir, fileName), maxInstructionBytes)
    if (read._tag === "Refused") notes.push(`${read.file} ${read.reason}; treated as missing.`)
    if (read._tag !== "Read") continue
    const text = withoutBom(read.text)
    if (text.trim() !== "") return { file: read.file, text }
  }
  return undefined
}

/** Each of `names` read as readPromptTextFile reads one (the files a set or an attachment folder holds). */
export const readPromptTextFiles = <N extends string>(dir: string, names: ReadonlyArray<N>, root: ConfinedRoot, notes: Array<string>): Partial<Record<N, PromptFile>> => {
  const files: Partial<Record<N, PromptFile>> = {}
  for (const name of names) {
    const file = readPromptTextFile(dir, name, root, notes)
    if (file !== undefined) files[name] = file
  }
  return files
}

/** What a folder is called where it is listed: its manifest's name, else its folder's. */
export const manifestTitle = (manifest: { readonly name?: string | undefined }, id: string): string =>
  manifest.name !== undefined && manifest.name.trim() !== "" ? manifest.name : id

// ---------------------------------------------------------------------------------------------
// Editing

/** The fields a command may change. */
export interface ManifestChanges {
  readonly enabled?: boolean
  readonly order?: number
}

interface Member {
  readonly key: string
  readonly keyEnd: number
  readonly valueStart: number
  readonly valueEnd: number
  readonly keyStart: number
}

interface TopLevel {
  readonly open: number
  readonly close: number
  readonly members: ReadonlyArray<Member>
}

const stringToken = /"(?:[^"\\]|\\.)*"/y

/** The members of the top-level object of a text JSON.parse accepts, with their positions. */
const scanTopLevel = (text: string): TopLevel => {
  let at = 0
  const space = () => {
    while (at < text.length && " \t\n\r".includes(text[at] ?? "")) at++
  }
  const string = (): void => {
    stringToken.lastIndex = at
    if (!stringToken.test(text)) throw new Error(`unexpected text at ${at}`)
    at = stringToken.lastIndex
  }
  const value = (): void => {
    const char = text[at]
    if (char === '"') return string()
    if (char === "{" || char === "[") {
      let depth = 0
      while (at < text.length) {
        const c = text[at]
        if (c === '"') {
          string()
          continue
        }
        if (c === "{" || c === "[") depth++
        if (c === "}" || c === "]") depth--
        at++
        if (depth === 0) return
      }
      return
    }
    while (at < text.length && !",}] \t\n\r".includes(text[at] ?? "")) at++
  }
  if (text.startsWith(bom)) at = 1
  space()
  const open = at
  at++
  const members: Array<Member> = []
  for (;;) {
    space()
    if (text[at] === "}") break
    if (text[at] === ",") {
      at++
      continue
    }
    const keyStart = at
    string()
    const keyEnd = at
    const key = JSON.parse(text.slice(keyStart, keyEnd)) as string
    space()
    at++ // the colon
    space()
    const valueStart = at
    value()
    members.push({ key, keyStart, keyEnd, valueStart, valueEnd: at })
  }
  return { open, close: at, members }
}

const setField = (text: string, key: string, value: unknown): string => {
  const top = scanTopLevel(text)
  const encoded = JSON.stringify(value)
  const existing = top.members.filter((member) => member.key === key)
  if (existing.length > 0) {
    // Every occurrence (JSON.parse keeps the last of duplicates), from the end so positions hold.
    return [...existing]
      .reverse()
      .reduce((acc, member) => `${acc.slice(0, member.valueStart)}${encoded}${acc.slice(member.valueEnd)}`, text)
  }
  const first = top.members[0]
  const last = top.members.at(-1)
  if (first === undefined || last === undefined) {
    return `${text.slice(0, top.open + 1)}\n  ${JSON.stringify(key)}: ${encoded}\n${text.slice(top.close)}`
  }
  // Formatted the way the file formats its own members: the line break and indentation before the
  // first one (or the space after a comma, on one line), and the spacing around its colon.
  const lead = text.slice(top.open + 1, first.keyStart)
  const colon = text.slice(first.keyEnd, first.valueStart)
  const second = top.members[1]
  const afterComma = second === undefined ? undefined : (/[ \t\r\n]*$/.exec(text.slice(first.valueEnd, second.keyStart))?.[0] ?? "")
  const separator = lead.includes("\n") ? lead : (afterComma ?? (lead !== "" || colon.includes(" ") ? " " : ""))
  return `${text.slice(0, last.valueEnd)},${separator}${JSON.stringify(key)}${colon}${encoded}${text.slice(last.valueEnd)}`
}

/**
 * The manifest text with `changes` applied and nothing else altered: an existing field's value is
 * replaced where it stands, a new field goes last, formatted like the first. Fields that already
 * hold the value are left byte for byte.
 */
export const editManifestText = (text: string, changes: ManifestChanges): string => {
  const body = withoutBom(text)
  const before = JSON.parse(body) as Record<string, unknown>
  let next = text
  const applied: Record<string, unknown> = { ...before }
  for (const [key, value] of Object.entries(changes) as Array<[string, unknown]>) {
    if (value === undefined || before[key] === value) continue
    next = setField(next, key, value)
    applied[key] = value
  }
  if (next === text) return text
  const after = JSON.parse(withoutBom(next)) as unknown
  if (JSON.stringify(after) !== JSON.stringify(applied)) {
    // Cannot happen for a text JSON.parse accepted; rewrite whole rather than write a wrong file.
    return `${text.startsWith(bom) ? bom : ""}${JSON.stringify(applied, null, 2)}\n`
  }
  return next
}

/**
 * Writes `changes` into the manifest `file` read as `textWhenRead`, atomically, keeping its
 * permissions (and writing through a symbolic link). Throws an Error saying why when the file no
 * longer holds that text or is read-only; false when nothing needed to change (the file is not touched).
 */
export const saveManifestChanges = async (file: string, textWhenRead: string, changes: ManifestChanges): Promise<boolean> => {
  const current = await fsp.readFile(file, "utf8")
  if (current !== textWhenRead) throw new Error("it changed on disk since it was read; nothing was written, try again")
  const next = editManifestText(current, changes)
  if (next === current) return false
  const real = await fsp.realpath(file)
  // A read-only manifest says "do not change me": a rename would replace it all the same.
  await fsp.access(real, fs.constants.W_OK).catch(() => {
    throw new Error("it is read-only; nothing was written")
  })
  const stat = await fsp.stat(real)
  await writeFileAtomic(real, next, { mode: stat.mode & 0o777 })
  return true
}

/** saveManifestChanges for a prompt set's or attachment's manifest, failing with a PromptChangeError. */
export const writeManifestChanges = (manifest: PromptManifest, changes: ManifestChanges): Effect.Effect<boolean, PromptChangeError> =>
  Effect.tryPromise({
    try: () => saveManifestChanges(manifest.file, manifest.text, changes),
    catch: (error) => new PromptChangeError({ message: `${manifest.file}: cannot save (${messageOf(error)})` })
  })
