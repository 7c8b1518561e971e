/**
 * What a resumed session shows before its input: the end of the conversation so far, drawn the
 * way it looked when it streamed (prompts, answers through the Markdown renderer, tool calls).
 */
import type { TranscriptItem } from "../session/items.ts"
import { MarkdownStream } from "./markdown.ts"
import type { Palette } from "../terminal/colors.ts"
import { promptMark } from "./editor-view.ts"
import { callLine } from "./turn-view.ts"
import { plural } from "../text/plural.ts"

/** The last `exchanges` prompts with everything after them; earlier ones are counted in one line. */
export const recap = (items: ReadonlyArray<TranscriptItem>, palette: Palette, width: number, exchanges = 2): Array<string> => {
  const prompts = items.flatMap((item, index) => (item._tag === "user" && item.synthetic === undefined ? [index] : []))
  if (prompts.length === 0) return []
  const from = prompts[Math.max(0, prompts.length - exchanges)] ?? 0
  const lines: Array<string> = []
  const earlier = prompts.filter((index) => index < from).length
  if (earlier > 0) lines.push(palette.dim(`… ${plural(earlier, "earlier prompt")}`))
  for (const item of items.slice(from)) {
    switch (item._tag) {
      case "user":
        if (item.synthetic === undefined) lines.push(...item.text.split("\n").map((line, i) => palette.bold(`${i === 0 ? promptMark : "  "}${line}`)))
        break
      case "assistant": {
        const markdown = new MarkdownStream(palette)
        lines.push(...markdown.push(item.text), ...markdown.end())
        if (item.incomplete === true) lines.push(palette.yellow("⏹ cancelled · the partial answer is kept"))
        for (const call of item.toolCalls ?? []) lines.push(`${palette.cyan("●")} ${palette.bold(callLine(call, width - 3))}`)
        break
      }
      case "note":
        lines.push(palette.yellow(item.text))
        break
      case "tool_result":
        break
    }
  }
  return [...lines, palette.dim("── resumed ──"), ""]
}
