/**
 * tools.json (SPEC X1–X4; docs/tools.md): one tool set per folder. Parsing is checking: a manifest
 * that is not exactly right is one problem naming the file and the field, and the set is skipped;
 * the file is never rewritten.
 */
import type { Mode } from "../session/document.ts"
import { parseJsonObject } from "../config/manifest-reader.ts"
import { objectSchemaProblem } from "../tools/json-schema-check.ts"
import { jsonPreview } from "../text/clip.ts"

export const manifestFileName = "tools.json"
export const setNamePattern = /^[A-Za-z][A-Za-z0-9_.-]{0,63}$/
export const setNameRule = "1–64 characters: a letter, then letters, digits, '_', '.' or '-'"
/** What providers take as a function name. */
export const toolNamePattern = /^[A-Za-z_][A-Za-z0-9_-]{0,63}$/
export const defaultTimeoutSeconds = 60
export const maxTimeoutSeconds = 3600

/** `always`: ask before every call, whatever the approval mode (the author's declaration). */
export type ApprovalDeclaration = "always" | "policy"

export interface ExecToolDeclaration {
  readonly name: string
  readonly description: string
  readonly parameters: Readonly<Record<string, unknown>>
  readonly command: ReadonlyArray<string>
  readonly stdin: boolean
  /** Property → flag, in the manifest's order. */
  readonly argv: ReadonlyArray<readonly [string, string]>
  readonly output: "text" | "content"
  readonly approval: ApprovalDeclaration
  readonly timeoutSeconds: number
}

interface ManifestBase {
  /** The text as read; enable/disable edit it in place. */
  readonly text: string
  readonly enabled: boolean
  readonly catalogs: ReadonlyArray<Mode>
}

export interface ExecManifest extends ManifestBase {
  readonly runner: "exec"
  readonly tools: ReadonlyArray<ExecToolDeclaration>
}

export interface ModuleManifest extends ManifestBase {
  readonly runner: "module"
  /** Relative to the set's folder. */
  readonly entry: string
  readonly approval: ApprovalDeclaration
  readonly timeoutSeconds: number
}

export type ToolSetManifest = ExecManifest | ModuleManifest

export type ManifestParse = { readonly _tag: "Ok"; readonly manifest: ToolSetManifest } | { readonly _tag: "Bad"; readonly problem: string }

type Json = Readonly<Record<string, unknown>>

const isObject = (value: unknown): value is Json => typeof value === "object" && value !== null && !Array.isArray(value)

class Problem extends Error {}
const bad = (field: string, expected: string, value: unknown): never => {
  throw new Problem(`${field}: expected ${expected}${value === undefined ? "" : ` (got ${jsonPreview(value, 40)})`}`)
}

const knownSetFields = new Set(["enabled", "runner", "catalogs", "tools", "entry", "approval", "timeoutSeconds", "description"])
const knownToolFields = new Set(["name", "description", "parameters", "command", "stdin", "argv", "output", "approval", "timeoutSeconds"])

const booleanField = (json: Json, field: string, where: string, fallback: boolean): boolean => {
  const value = json[field]
  if (value === undefined) return fallback
  return typeof value === "boolean" ? value : bad(`${where}${field}`, "true or false", value)
}

const approvalField = (json: Json, where: string, fallback: ApprovalDeclaration): ApprovalDeclaration => {
  const value = json["approval"]
  if (value === undefined) return fallback
  return value === "always" || value === "policy" ? value : bad(`${where}approval`, '"always" or "policy"', value)
}

const timeoutField = (json: Json, where: string, fallback: number): number => {
  const value = json["timeoutSeconds"]
  if (value === undefined) return fallback
  return typeof value === "number" && Number.isFinite(value) && value > 0 && value <= maxTimeoutSeconds
    ? value
    : bad(`${where}timeoutSeconds`, `a number of seconds above 0 and at most ${maxTimeoutSeconds}`, value)
}

const unknownField = (json: Json, known: ReadonlySet<string>, where: string): void => {
  // "$schema" and "x-…" keys are the author's own (notes, editor hints): kept, never read.
  const unknown = Object.keys(json).find((key) => !known.has(key) && key !== "$schema" && !key.startsWith("x-"))
  if (unknown !== undefined) throw new Problem(`${where}${unknown}: unknown field (expected one of ${[...known].join(", ")}, or an "x-" key of your own)`)
}

const parseCatalogs = (json: Json): ReadonlyArray<Mode> => {
  const value = json["catalogs"]
  if (value === undefined) return ["plan", "work"]
  if (!Array.isArray(value) || value.length === 0 || value.some((mode) => mode !== "plan" && mode !== "work")) {
    return bad("catalogs", 'a non-empty list of "plan" and "work"', value)
  }
  return [...new Set(value as ReadonlyArray<Mode>)]
}

const parseTool = (value: unknown, index: number, defaults: { approval: ApprovalDeclaration; timeoutSeconds: number }): ExecToolDeclaration => {
  const where = `tools[${index}].`
  if (!isObject(value)) return bad(`tools[${index}]`, "an object", value)
  unknownField(value, knownToolFields, where)
  const name = value["name"]
  if (typeof name !== "string" || !toolNamePattern.test(name)) return bad(`${where}name`, "a tool name (a letter or _, then up to 63 letters, digits, _ or -)", name)
  const description = value["description"]
  if (typeof description !== "string" || description.trim() === "") return bad(`${where}description`, "a non-empty string", description)
  const parameters = value["parameters"] ?? { type: "object", properties: {} }
  const schemaProblem = objectSchemaProblem(parameters)
  if (schemaProblem !== undefined) throw new Problem(`${where}parameters: ${schemaProblem}`)
  const command = value["command"]
  if (!Array.isArray(command) || command.length === 0 || command.some((part) => typeof part !== "string" || part === "")) {
    return bad(`${where}command`, 'a non-empty list of non-empty strings (an argv, e.g. ["python3", "./count.py"]; never a shell line)', command)
  }
  const argvValue = value["argv"] ?? {}
  if (!isObject(argvValue) || Object.values(argvValue).some((flag) => typeof flag !== "string" || flag === "")) {
    return bad(`${where}argv`, 'an object of property → flag (e.g. {"path": "--path"})', argvValue)
  }
  const output = value["output"] ?? "text"
  if (output !== "text" && output !== "content") return bad(`${where}output`, '"text" or "content"', output)
  return {
    name,
    description,
    parameters: parameters as Json,
    command: command as ReadonlyArray<string>,
    stdin: booleanField(value, "stdin", where, true),
    argv: Object.entries(argvValue as Record<string, string>),
    output,
    approval: approvalField(value, where, defaults.approval),
    timeoutSeconds: timeoutField(value, where, defaults.timeoutSeconds)
  }
}

const parseManifestJson = (json: Json, text: string): ToolSetManifest => {
  unknownField(json, knownSetFields, "")
  const enabled = booleanField(json, "enabled", "", true)
  const runner = json["runner"] ?? "exec"
  if (runner !== "exec" && runner !== "module") return bad("runner", '"exec" or "module"', runner)
  const catalogs = parseCatalogs(json)
  const approval = approvalField(json, "", "policy")
  const timeoutSeconds = timeoutField(json, "", defaultTimeoutSeconds)
  if (runner === "module") {
    const entry = json["entry"]
    if (typeof entry !== "string" || !/\.(mjs|js|ts|mts)$/.test(entry) || entry.startsWith("/") || entry.split(/[\\/]/).includes("..")) {
      return bad("entry", 'a .mjs, .js or .ts file inside the set\'s folder (e.g. "tools.mjs")', entry)
    }
    if (json["tools"] !== undefined) throw new Problem('tools: a module set takes its tools from its entry module; remove "tools" or use "runner": "exec"')
    return { runner, text, enabled, catalogs, entry, approval, timeoutSeconds }
  }
  if (json["entry"] !== undefined) throw new Problem('entry: only a module set has an entry; add "runner": "module" or remove it')
  const tools = json["tools"]
  if (!Array.isArray(tools) || tools.length === 0) return bad("tools", "a non-empty list of tools", tools)
  return { runner, text, enabled, catalogs, tools: tools.map((tool, index) => parseTool(tool, index, { approval, timeoutSeconds })) }
}

/** `file` names the manifest in the problem. */
export const parseManifest = (file: string, text: string): ManifestParse => {
  const parsed = parseJsonObject(text)
  if (parsed._tag === "Problem") return { _tag: "Bad", problem: `${file}: ${parsed.problem}` }
  try {
    return { _tag: "Ok", manifest: parseManifestJson(parsed.raw, text) }
  } catch (error) {
    if (error instanceof Problem) return { _tag: "Bad", problem: `${file}: ${error.message}; the tool set is skipped` }
    throw error
  }
}
