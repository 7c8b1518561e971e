/**
 * One agent file (issue 26): front matter `name`, `description`, `tools`, `model`, `mode`,
 * `maxSteps`, then the child's system prompt. Read with the slash commands' and skills' front
 * matter reader; a YAML block list (`tools:` then `- read` lines) is folded into `[read, ...]`
 * first, since agent files written for other tools use it. A file with anything wrong is refused
 * whole with one line naming the file and the field, never half-used: a field Crystal does not
 * know (`disallowedTools`, `permissionMode`) would narrow or change what the child may do, and
 * ignoring it would widen it.
 */
import * as path from "node:path"
import { parseFrontMatter } from "../skills/discover.ts"
import type { AgentDefinition } from "./definition.ts"

export const agentNamePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/
const toolPatternSyntax = /^[A-Za-z0-9_.*-]{1,128}$/
const maxDescription = 1024
const knownFields = ["name", "description", "tools", "model", "mode", "maxSteps"]
const approvalFields = new Set(["permissionMode", "permission", "permissions", "approval", "allowed-tools", "allowedTools", "disallowedTools"])
const controlCharacters = /[\x00-\x1f\x7f-\x9f]/

export type ParsedAgent = { readonly _tag: "Agent"; readonly agent: AgentDefinition } | { readonly _tag: "Refused"; readonly note: string }

/** `key:` followed by `- item` lines becomes `key: [item, ...]`; everything else is left as written. */
export const foldBlockLists = (text: string): string => {
  const normalized = text.replace(/^\uFEFF/, "").replace(/\r\n/g, "\n")
  if (!normalized.startsWith("---\n")) return normalized
  const end = normalized.indexOf("\n---", 4)
  if (end < 0) return normalized
  const out: Array<string> = []
  let open: { readonly key: string; readonly items: Array<string> } | undefined
  const close = () => {
    if (open !== undefined) out.push(open.items.length === 0 ? `${open.key}:` : `${open.key}: [${open.items.join(", ")}]`)
    open = undefined
  }
  for (const line of normalized.slice(4, end).split("\n")) {
    const item = /^\s*-\s+(.*)$/.exec(line)
    if (open !== undefined && item !== null) {
      open.items.push((item[1] ?? "").trim())
      continue
    }
    close()
    const key = /^([A-Za-z][A-Za-z0-9_-]*):\s*$/.exec(line)
    if (key !== null) open = { key: key[1] ?? "", items: [] }
    else out.push(line)
  }
  close()
  return `---\n${out.join("\n")}${normalized.slice(end)}`
}

const unquote = (value: string): string => {
  const trimmed = value.trim()
  return trimmed.length >= 2 && (trimmed[0] === '"' || trimmed[0] === "'") && trimmed.at(-1) === trimmed[0] ? trimmed.slice(1, -1) : trimmed
}

/** `read, grep`, `[read, grep]`, `[]`: the patterns, or a reason the value is not a list of tool names. */
export const parseToolList = (value: string): ReadonlyArray<string> | string => {
  const trimmed = value.trim()
  const inner = trimmed.startsWith("[") && trimmed.endsWith("]") ? trimmed.slice(1, -1) : trimmed
  if (inner.trim() === "") return trimmed.startsWith("[") ? [] : "expected a list of tool names (tools: read, grep or tools: [read, grep]; [] for none)"
  const items = inner.split(",").map(unquote)
  const bad = items.find((item) => !toolPatternSyntax.test(item))
  if (bad !== undefined) return `expected tool names or patterns with * (letters, digits, '_', '.', '-'), got ${JSON.stringify(bad)}`
  return items
}

/** A name that is one of `known` in another case (`Read` for `read`), so the note can say which one. */
const otherCase = (pattern: string, known: ReadonlyArray<string>): string | undefined =>
  pattern.includes("*") || known.includes(pattern) ? undefined : known.find((name) => name.toLowerCase() === pattern.toLowerCase())

export interface AgentFileContext {
  readonly file: string
  readonly scope: "user" | "workspace"
  /** The built-in tools' names: a `tools` entry that is one of them in another case is refused with the right spelling. */
  readonly knownToolNames: ReadonlyArray<string>
}

export const parseAgentFile = (text: string, context: AgentFileContext): ParsedAgent => {
  const { file } = context
  const stem = path.basename(file, ".md")
  const refuse = (what: string): ParsedAgent => ({ _tag: "Refused", note: `${file}: ${what}; agent skipped.` })
  const parsed = parseFrontMatter(foldBlockLists(text))
  if (parsed === undefined) return refuse(`expected front matter at the top ("---", then "key: value" lines with at least description, then "---")`)
  const fields = parsed.fields
  for (const key of Object.keys(fields)) {
    if (approvalFields.has(key)) return refuse(`"${key}" is not allowed: a subagent never changes approval (its parent's approval mode, fence and grants apply); narrow it with "tools"`)
    if (!knownFields.includes(key)) return refuse(`unknown front matter field "${key}" (expected ${knownFields.join(", ")})`)
  }
  const name = fields["name"] ?? stem
  if (!agentNamePattern.test(name)) return refuse(`"name" must be 1–64 letters, digits, '.', '_' or '-', starting with a letter or digit (got ${JSON.stringify(name)})`)
  const description = fields["description"] ?? ""
  if (description.trim() === "") return refuse(`"description" is required (the model reads it to choose the agent)`)
  if (description.length > maxDescription) return refuse(`"description" must be at most ${maxDescription} characters`)
  if (controlCharacters.test(description)) return refuse(`"description" must not hold control characters`)
  let tools: ReadonlyArray<string> | undefined
  if (fields["tools"] !== undefined) {
    const list = parseToolList(fields["tools"])
    if (typeof list === "string") return refuse(`"tools": ${list}`)
    const misspelt = list.map((pattern) => [pattern, otherCase(pattern, context.knownToolNames)] as const).find(([, known]) => known !== undefined)
    if (misspelt !== undefined) return refuse(`"tools": no tool is named ${JSON.stringify(misspelt[0])}; Crystal's is ${JSON.stringify(misspelt[1])} (names are matched exactly)`)
    tools = list
  }
  const model = fields["model"] ?? "inherit"
  if (model !== "inherit" && (!/^[^/\s]+\/\S+$/.test(model) || controlCharacters.test(model))) return refuse(`"model" must be inherit or provider/model (got ${JSON.stringify(model)})`)
  const mode = fields["mode"]
  if (mode !== undefined && mode !== "plan" && mode !== "work") return refuse(`"mode" must be plan or work (got ${JSON.stringify(mode)})`)
  const steps = fields["maxSteps"]
  const maxSteps = steps === undefined ? undefined : /^[0-9]{1,6}$/.test(steps) ? Number(steps) : Number.NaN
  if (maxSteps !== undefined && !(maxSteps >= 1)) return refuse(`"maxSteps" must be a whole number from 1 to 999999 (got ${JSON.stringify(steps)})`)
  if (parsed.body.trim() === "") return refuse(`the agent's prompt (after the front matter) is empty`)
  return {
    _tag: "Agent",
    agent: { name, description, tools, model, mode, maxSteps, prompt: parsed.body, source: { path: file, scope: context.scope } }
  }
}
