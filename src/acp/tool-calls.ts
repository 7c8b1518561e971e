/**
 * How a Crystal tool call looks to an ACP client: its kind (the icon an editor shows), a title a
 * person reads, and the files it touches (so the editor can follow along). Pure: the names come
 * from the tools' own constants, the paths are resolved against the session's workspace.
 */
import * as path from "node:path"
import type { ToolCallLocation, ToolKind } from "@agentclientprotocol/sdk"
import { bashToolNames } from "../tools/bash-specs.ts"
import { viewImageSpec, describeImageSpec } from "../tools/image-specs.ts"
import { planToolName } from "../tools/plan-tool.ts"
import { proposePlanToolName } from "../tools/propose-plan-tool.ts"
import { questionToolName } from "../tools/question-tool.ts"
import { searchSpec } from "../tools/search-spec.ts"
import { skillToolName } from "../tools/skill-tool.ts"
import { globSpec, grepSpec, listSpec, readSpec, treeSpec } from "../tools/specs.ts"
import { todoToolNames } from "../tools/todo-tools.ts"
import { webFetchSpec } from "../tools/web-fetch-spec.ts"
import { editSpec, writeSpec } from "../tools/write-specs.ts"

export interface ToolCallView {
  readonly kind: ToolKind
  readonly title: string
  readonly locations: ReadonlyArray<ToolCallLocation>
}

const kinds: Readonly<Record<string, ToolKind>> = {
  [readSpec.name]: "read",
  [listSpec.name]: "read",
  [treeSpec.name]: "read",
  [viewImageSpec.name]: "read",
  [describeImageSpec.name]: "read",
  [skillToolName]: "read",
  [globSpec.name]: "search",
  [grepSpec.name]: "search",
  [searchSpec.name]: "search",
  [editSpec.name]: "edit",
  [writeSpec.name]: "edit",
  [bashToolNames.bash]: "execute",
  [bashToolNames.bashStart]: "execute",
  [bashToolNames.bashStop]: "execute",
  [bashToolNames.bashStatus]: "read",
  [bashToolNames.bashLogs]: "read",
  [webFetchSpec.name]: "fetch",
  [todoToolNames.write]: "think",
  [todoToolNames.read]: "think",
  [planToolName]: "think",
  [proposePlanToolName]: "switch_mode",
  [questionToolName]: "other"
}

const text = (args: Record<string, unknown>, key: string): string | undefined => {
  const value = args[key]
  return typeof value === "string" ? value : undefined
}

const integer = (args: Record<string, unknown>, key: string): number | undefined => {
  const value = args[key]
  return typeof value === "number" && Number.isInteger(value) ? value : undefined
}

/** One line, at most 80 characters: a title is a label, not the command's whole text. */
const short = (value: string): string => {
  const line = value.replace(/\s+/g, " ").trim()
  return line.length > 80 ? `${line.slice(0, 79)}…` : line
}

/** The files a call names: edit, write and the readers name one; search tools name where they look. */
const pathArgument = (name: string, args: Record<string, unknown>): string | undefined => {
  if (name === readSpec.name || name === editSpec.name || name === writeSpec.name || name === viewImageSpec.name) return text(args, "path")
  if (name === listSpec.name || name === treeSpec.name || name === globSpec.name || name === grepSpec.name) return text(args, "path") ?? "."
  return undefined
}

/** The absolute path of a file a call names, or undefined when it names none. */
export const callPath = (name: string, args: unknown, workspace: string): string | undefined => {
  const record = typeof args === "object" && args !== null ? (args as Record<string, unknown>) : {}
  const named = pathArgument(name, record)
  return named === undefined ? undefined : path.resolve(workspace, named)
}

const titleOf = (name: string, args: Record<string, unknown>, workspace: string): string => {
  const shown = (file: string | undefined) => {
    if (file === undefined) return ""
    const relative = path.relative(workspace, path.resolve(workspace, file))
    return relative === "" ? "." : relative.startsWith("..") ? path.resolve(workspace, file) : relative
  }
  switch (name) {
    case readSpec.name:
      return `Read ${shown(text(args, "path"))}`
    case editSpec.name:
      return `Edit ${shown(text(args, "path"))}`
    case writeSpec.name:
      return `Write ${shown(text(args, "path"))}`
    case listSpec.name:
    case treeSpec.name:
      return `${name === listSpec.name ? "List" : "Tree"} ${shown(text(args, "path") ?? ".")}`
    case globSpec.name:
      return `Find ${short(text(args, "pattern") ?? "")}`
    case grepSpec.name:
      return `Search /${short(text(args, "pattern") ?? "")}/${text(args, "path") === undefined ? "" : ` in ${shown(text(args, "path"))}`}`
    case searchSpec.name:
      return `Search: ${short(text(args, "query") ?? "")}`
    case bashToolNames.bash:
    case bashToolNames.bashStart:
      return `${name === bashToolNames.bash ? "Run" : "Start"} \`${short(text(args, "command") ?? "")}\``
    case bashToolNames.bashStop:
    case bashToolNames.bashStatus:
    case bashToolNames.bashLogs:
      return `${name} ${text(args, "id") ?? ""}`.trim()
    case webFetchSpec.name:
      return `Fetch ${short(text(args, "url") ?? "")}`
    case todoToolNames.write:
      return "Update the todo list"
    case todoToolNames.read:
      return "Read the todo list"
    case proposePlanToolName:
      return "Propose the plan"
    default:
      if (name.startsWith("mcp__")) {
        const [, server = "", ...tool] = name.split("__")
        return `${server}: ${tool.join("__")}`
      }
      return name
  }
}

export const viewToolCall = (name: string, args: unknown, workspace: string): ToolCallView => {
  const record = typeof args === "object" && args !== null ? (args as Record<string, unknown>) : {}
  const file = callPath(name, record, workspace)
  const line = name === readSpec.name ? integer(record, "offset") : undefined
  return {
    kind: kinds[name] ?? "other",
    title: titleOf(name, record, workspace),
    locations: file === undefined ? [] : [line === undefined ? { path: file } : { path: file, line }]
  }
}

/** edit and write: the calls whose result is shown as a diff of the file. */
export const changesFile = (name: string): boolean => name === editSpec.name || name === writeSpec.name
