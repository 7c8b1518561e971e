import type { ToolCall, ToolResult } from "../../session/items.ts"

const keyArguments = ["path", "pattern", "command", "query", "url"] as const

const clip = (text: string, width: number): string => (text.length <= width ? text : `${text.slice(0, width - 1)}…`)

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
  return `${lines} line${lines === 1 ? "" : "s"}`
}
