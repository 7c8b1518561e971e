/**
 * Slash commands from files: `~/.crystal/commands/NAME.md` and `<workspace>/.crystal/commands/NAME.md`,
 * a subfolder giving `/group:name`. The body is a prompt (command-arguments.ts fills it in); optional
 * front matter gives `description`, `argument-hint`, `mode` and `model`. The workspace's file wins
 * over the home's of the same name (the repository's command is the one its people share). A file
 * that would take a built-in command's name, names an agent, or asks for anything about approval is
 * refused with a note naming the file, never half-used: a command is text, it never changes approval.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { crystalHomeRoot, maxInstructionBytes, readConfined, workspaceRoot, type ConfinedRoot } from "../files/confined-read.ts"
import { parseFrontMatter } from "../skills/discover.ts"

export interface FileCommand {
  /** "review" or "git:commit". */
  readonly name: string
  readonly description: string
  /** What the arguments are, for /help and completion ("ISSUE [PRIORITY]"); undefined when the body takes none. */
  readonly usage: string | undefined
  readonly mode: "plan" | "work" | undefined
  /** "provider/model" */
  readonly model: string | undefined
  readonly body: string
  readonly file: string
  readonly source: "home" | "workspace"
}

export interface FileCommandList {
  readonly commands: ReadonlyArray<FileCommand>
  /** Names whose file was refused, with the one-line note that says why (used when the name is typed). */
  readonly refused: ReadonlyMap<string, string>
  readonly notes: ReadonlyArray<string>
}

export const emptyCommandList: FileCommandList = { commands: [], refused: new Map(), notes: [] }

const segmentPattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/
/** Deep enough for `/group:sub:name`; a deeper tree is someone's notes, not commands. */
const maxDepth = 3
/** More than any menu can show; a folder with more is not a list of commands. */
const maxCommands = 500
const maxDescription = 200
const knownFields = new Set(["description", "argument-hint", "mode", "model", "agent"])
const approvalFields = new Set(["allowed-tools", "approval", "permissions", "permission"])

const byName = (a: fs.Dirent, b: fs.Dirent) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0)

interface Found {
  readonly name: string
  readonly file: string
}

/** NAME.md files under `dir`, their names joined with ":" by folder; folders that are links are not followed. */
const listCommandFiles = (dir: string, prefix: ReadonlyArray<string>, depth: number, found: Array<Found>, notes: Array<string>): void => {
  let entries: Array<fs.Dirent>
  try {
    entries = fs.readdirSync(dir, { withFileTypes: true })
  } catch {
    return
  }
  for (const entry of entries.sort(byName)) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) {
      if (!segmentPattern.test(entry.name)) notes.push(`${full}: a command folder's name must be letters, digits, '.', '_' or '-'; skipped.`)
      else if (depth + 1 >= maxDepth) notes.push(`${full}: command folders go at most ${maxDepth - 1} deep; skipped.`)
      else listCommandFiles(full, [...prefix, entry.name], depth + 1, found, notes)
      continue
    }
    if (!entry.name.endsWith(".md")) continue
    const stem = entry.name.slice(0, -3)
    if (!segmentPattern.test(stem)) {
      notes.push(`${full}: a command's file name must be letters, digits, '.', '_' or '-' before .md; skipped.`)
      continue
    }
    found.push({ name: [...prefix, stem].join(":"), file: full })
  }
}

type Parsed = { readonly _tag: "Command"; readonly command: FileCommand } | { readonly _tag: "Refused"; readonly note: string }

const refuse = (note: string): Parsed => ({ _tag: "Refused", note })

/** Says whether the body reads its arguments, so a command that takes none runs on Enter from the menu. */
const takesArguments = (body: string): boolean => /\$ARGUMENTS|\$[1-9]/.test(body)

const parseCommand = (found: Found, text: string, source: FileCommand["source"], reserved: ReadonlySet<string>): Parsed => {
  const { name, file } = found
  if (reserved.has(name)) return refuse(`${file}: /${name} is a built-in command; rename the file (the built-in one stays).`)
  const hasFrontMatter = /^\uFEFF?---\r?\n/.test(text)
  const parsed = hasFrontMatter ? parseFrontMatter(text) : { fields: {}, body: text.replace(/^\uFEFF/, "") }
  if (parsed === undefined) return refuse(`${file}: the front matter must be "key: value" lines between two "---" lines; /${name} skipped.`)
  const fields: Readonly<Record<string, string>> = parsed.fields
  for (const key of Object.keys(fields)) {
    if (approvalFields.has(key)) return refuse(`${file}: "${key}" is not allowed: a command never changes approval (the session's approval mode decides); /${name} skipped.`)
    if (!knownFields.has(key)) return refuse(`${file}: unknown front matter field "${key}" (expected description, argument-hint, mode or model); /${name} skipped.`)
  }
  if (fields["agent"] !== undefined) return refuse(`${file}: "agent" names a subagent, and a command cannot run as one (it runs in the session itself); /${name} skipped.`)
  const mode = fields["mode"]
  if (mode !== undefined && mode !== "plan" && mode !== "work") return refuse(`${file}: "mode" must be plan or work (got ${JSON.stringify(mode)}); /${name} skipped.`)
  const model = fields["model"]
  if (model !== undefined && !/^[^/\s]+\/\S+$/.test(model)) return refuse(`${file}: "model" must be provider/model (got ${JSON.stringify(model)}); /${name} skipped.`)
  const description = fields["description"] ?? ""
  if (description.length > maxDescription) return refuse(`${file}: "description" must be at most ${maxDescription} characters; /${name} skipped.`)
  if (parsed.body.trim() === "") return refuse(`${file}: the command's prompt (after the front matter) is empty; /${name} skipped.`)
  const hint = fields["argument-hint"]
  return {
    _tag: "Command",
    command: {
      name,
      description: description === "" ? `${source} command (${path.basename(file)})` : description,
      usage: hint !== undefined && hint !== "" ? hint : takesArguments(parsed.body) ? "ARGUMENTS" : undefined,
      mode,
      model,
      body: parsed.body,
      file,
      source
    }
  }
}

const readSide = (dir: string, source: FileCommand["source"], root: ConfinedRoot, reserved: ReadonlySet<string>, notes: Array<string>) => {
  const found: Array<Found> = []
  listCommandFiles(dir, [], 0, found, notes)
  if (found.length > maxCommands) {
    notes.push(`${dir}: more than ${maxCommands} command files; only the first ${maxCommands} (by name) are read.`)
    found.length = maxCommands
  }
  return found.map((entry): Parsed => {
    const read = readConfined(root, entry.file, maxInstructionBytes)
    if (read._tag === "Read") return parseCommand(entry, read.text, source, reserved)
    return refuse(read._tag === "Refused" ? `${read.note}; /${entry.name} skipped.` : `${entry.file} could not be read; /${entry.name} skipped.`)
  }).map((parsed, index) => ({ parsed, name: found[index]?.name ?? "" }))
}

/**
 * The commands of a home and a workspace. `reserved`: the built-in commands' names and aliases.
 * A refused workspace file also hides the home's command of its name: the operator typed the
 * name the repository means, and hears why it did not run.
 */
export const discoverCommands = (home: string, workspace: string, reserved: ReadonlyArray<string>): FileCommandList => {
  const notes: Array<string> = []
  const taken = new Set(reserved)
  const commands = new Map<string, FileCommand>()
  const refused = new Map<string, string>()
  const sides = [
    readSide(path.join(home, "commands"), "home", crystalHomeRoot(home), taken, notes),
    readSide(path.join(workspace, ".crystal", "commands"), "workspace", workspaceRoot(workspace), taken, notes)
  ]
  for (const side of sides) {
    for (const { parsed, name } of side) {
      if (parsed._tag === "Command") {
        commands.set(name, parsed.command)
        refused.delete(name)
      } else {
        notes.push(parsed.note)
        refused.set(name, parsed.note)
        commands.delete(name)
      }
    }
  }
  return { commands: [...commands.values()].sort((a, b) => (a.name < b.name ? -1 : 1)), refused, notes }
}

/** "/name args" → the name and the rest; undefined when the text is not one. */
export const parseCommandLine = (text: string): { readonly name: string; readonly args: string } | undefined => {
  const match = /^\/(\S+)\s*([\s\S]*)$/.exec(text.trim())
  return match === null ? undefined : { name: match[1] ?? "", args: (match[2] ?? "").trim() }
}
