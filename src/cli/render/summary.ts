import type { ToolCall, ToolResult } from "../../session/items.ts"
import type { ToolProgress } from "../../tools/tool.ts"
import { clip } from "../../text/clip.ts"
import { plural } from "../../text/plural.ts"

const keyArguments = ["path", "pattern", "command", "query", "url"] as const

/** "read src/main.ts" — the tool and the argument a person would want to see. */
export const describeCall = (call: ToolCall, width = 100): string => {
  const args = typeof call.arguments === "object" && call.arguments !== null ? (call.arguments as Record<string, unknown>) : {}
  const key = keyArguments.map((name) => args[name]).find((value) => typeof value === "string")
  const detail = typeof key === "string" ? key : JSON.stringify(call.arguments ?? {})
  return clip(`${call.name} ${detail}`.trim(), width)
}

/** "120 lines" for success, the first line of the message for errors. */
export const describeResult = (result: ToolResult, width = 100): string => {
  if (result.isError) return clip(result.text.split("\n")[0] ?? "", width)
  const lines = result.text === "" ? 0 : result.text.split("\n").length
  return plural(lines, "line")
}

const count = (value: number): string => (Number.isInteger(value) ? String(value) : value.toFixed(1))

/** "2/5 · indexing src", "40%" (a fractional total), "3" (no total): what a progress report says in one line. */
export const describeProgress = (update: ToolProgress, width = 100): string => {
  const { progress, total, message } = update
  const parts: Array<string> = []
  if (progress !== undefined) {
    if (total === undefined || total <= 0) parts.push(count(progress))
    else if (Number.isInteger(progress) && Number.isInteger(total)) parts.push(`${progress}/${total}`)
    else parts.push(`${Math.round((progress / total) * 100)}%`)
  }
  // Only white space is folded: a control character stays, for the renderer to show inert.
  const said = message?.replace(/\s+/g, " ").trim()
  if (said !== undefined && said !== "") parts.push(said)
  return clip(parts.join(" · "), width)
}
