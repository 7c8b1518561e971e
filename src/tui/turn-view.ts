/**
 * A turn as it streams, for the terminal: the answer through the Markdown renderer (finished
 * lines are committed, the unfinished one stays live), reasoning collapsed to one dim line, one
 * line per tool call with a result line under it, edits as a coloured diff, the tail of bash output.
 */
import * as Effect from "effect/Effect"
import type { FilesChangedEvent, RendererShape } from "../engine/renderer.ts"
import type { ToolCall, ToolResult } from "../session/items.ts"
import { describeCall, describeProgress } from "../cli/render/summary.ts"
import { diffLines, withContext } from "../text/diff.ts"
import { MarkdownStream } from "./markdown.ts"
import type { Palette } from "../terminal/colors.ts"
import { clipText } from "./width.ts"
import { InertStream, visible, visibleValue } from "../terminal/inert.ts"
import { formatBytes } from "../text/bytes.ts"
import { plural } from "../text/plural.ts"
import { bashToolNames } from "../tools/bash-specs.ts"
import { makeAgentLines } from "./agent-lines.ts"
import { defaultAgentName, taskToolName } from "../tools/task-tool.ts"
import { questionToolName } from "../tools/question-tool.ts"
import { editSpec, writeSpec } from "../tools/write-specs.ts"
import { filesChangedText } from "../engine/files-changed.ts"

export interface TurnSurface {
  readonly commit: (lines: ReadonlyArray<string>) => void
  /** The unfinished last line of the answer ("" = none). */
  readonly partial: (text: string) => void
  /** What the turn is doing now, shown live until it changes (undefined = nothing). */
  readonly activity: (text: string | undefined) => void
  readonly columns: () => number
  /** The running subagents' live lines (issue 26); absent: children are not shown live. */
  readonly agents?: ((lines: ReadonlyArray<string>) => void) | undefined
}

const maxDiffLines = 40
/** What the live line adds around the activity (spinner, seconds, "Ctrl+C cancels"), in columns. */
const activityFrame = 24
const bashTailLines = 6

export const formatDuration = (ms: number): string => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(1)} s`)

const stringArg = (call: ToolCall, name: string): string | undefined => {
  const args = call.arguments
  if (typeof args !== "object" || args === null) return undefined
  const value = (args as Record<string, unknown>)[name]
  return typeof value === "string" ? value : undefined
}

/** The diff an edit or write call would make, as display lines; empty for other tools. */
export const callDiff = (call: ToolCall, palette: Palette, width: number): Array<string> => {
  const before = call.name === editSpec.name ? stringArg(call, "old_string") : call.name === writeSpec.name ? "" : undefined
  const after = call.name === editSpec.name ? stringArg(call, "new_string") : call.name === writeSpec.name ? stringArg(call, "content") : undefined
  if (before === undefined || after === undefined) return []
  const lines = call.name === writeSpec.name ? after.replace(/\n$/, "").split("\n").map((text) => ({ kind: "+" as const, text })) : withContext(diffLines(before, after))
  const shown = lines.slice(0, maxDiffLines).map((line) => {
    const text = clipText(`${line.kind} ${line.text}`, width - 4)
    return `    ${line.kind === "+" ? palette.green(text) : line.kind === "-" ? palette.red(text) : palette.dim(text)}`
  })
  if (lines.length > maxDiffLines) shown.push(palette.dim(`    … ${lines.length - maxDiffLines} more lines`))
  return shown
}

/** The one line of a call: `crystal run`'s description, with the question tool's headers instead of its JSON. */
export const callLine = (call: ToolCall, width: number): string => {
  const questions = (call.arguments as { questions?: unknown } | undefined)?.questions
  if (call.name === questionToolName && Array.isArray(questions)) {
    const headers = questions.map((question) => (question as { header?: unknown }).header).filter((header) => typeof header === "string")
    return clipText(`question ${headers.join(", ")}`, width)
  }
  if (call.name === taskToolName) {
    const agent = stringArg(call, "agent") ?? defaultAgentName
    return clipText(`task ${agent} · ${(stringArg(call, "description") ?? "").replace(/\s+/g, " ")}`, width)
  }
  return describeCall(call, width)
}

/**
 * The lines under a call once its result is in: ok (with the edit's diff, unless an approval
 * dialog showed it already), denied or error in one line; a bash call's last lines of output.
 */
const resultLines = (
  call: ToolCall | undefined,
  result: ToolResult,
  durationMs: number,
  seen: { readonly denied: boolean; readonly previewed: boolean },
  palette: Palette,
  columns: number
): Array<string> => {
  const width = columns - 1
  const lines: Array<string> = []
  if (seen.denied) {
    lines.push(palette.yellow(clipText(`  ⎿ denied · ${result.text.split("\n")[0] ?? ""}`, width)))
  } else if (result.isError) {
    lines.push(palette.red(clipText(`  ⎿ error · ${result.text.split("\n")[0] ?? ""} · ${formatDuration(durationMs)}`, width)))
  } else {
    const lineCount = result.text === "" ? 0 : result.text.replace(/\n$/, "").split("\n").length
    lines.push(palette.dim(`  ⎿ ok · ${plural(lineCount, "line")} · ${formatBytes(Buffer.byteLength(result.text))} · ${formatDuration(durationMs)}`))
    if (call !== undefined && !seen.previewed) lines.push(...callDiff(call, palette, columns))
  }
  if (call?.name === bashToolNames.bash && !seen.denied) {
    const tail = result.text.replace(/\n+$/, "").split("\n").slice(-bashTailLines)
    if (tail.join("") !== "") lines.push(...tail.map((line) => palette.dim(`    ${clipText(line, width - 4)}`)))
  }
  return lines
}

/** The turn line of a turn that changed files (docs/checkpoints.md). */
const filesChangedLine = (event: FilesChangedEvent, palette: Palette): string =>
  palette.dim(`✎ turn ${event.turn}: ${filesChangedText(event.files)} · /rewind to undo`)

/** The terminal's renderer; `interrupted` marks a cancelled turn after what streamed. */
export type TurnView = RendererShape & { readonly interrupted: () => void }

export const makeTurnView = (surface: TurnSurface, palette: Palette): TurnView => {
  let markdown = new MarkdownStream(palette)
  let reasoningChars = 0
  let reasoningFirstLine = ""
  let reasoningStarted = 0
  const reasoningText = new InertStream()
  const calls = new Map<string, ToolCall>()
  const agents = surface.agents === undefined ? undefined : makeAgentLines(surface.agents)
  const denied = new Set<string>()
  // Calls the operator approved in a dialog that already showed their diff.
  const previewed = new Set<string>()

  const endReasoning = () => {
    if (reasoningChars === 0) return
    const seconds = ((Date.now() - reasoningStarted) / 1000).toFixed(1)
    const opening = reasoningFirstLine.trimStart().split("\n")[0] ?? ""
    surface.commit([palette.dim(clipText(`✻ thought for ${seconds} s · ${opening}`, surface.columns() - 1))])
    reasoningChars = 0
    reasoningFirstLine = ""
    reasoningText.end()
  }
  const endText = () => {
    const lines = markdown.end()
    surface.partial("")
    surface.commit(lines)
  }
  const settle = () => {
    endReasoning()
    endText()
  }
  const commitSettled = (lines: ReadonlyArray<string>) => {
    settle()
    surface.commit(lines)
  }

  return {
    sessionStarted: () => Effect.void,
    textDelta: (text) =>
      Effect.sync(() => {
        endReasoning()
        surface.activity(undefined)
        const lines = markdown.push(text)
        // The live tail first, so the redraw after the commit does not show the finished line twice.
        surface.partial(markdown.partialPreview())
        surface.commit(lines)
      }),
    reasoningDelta: (text) =>
      Effect.sync(() => {
        if (reasoningChars === 0) reasoningStarted = Date.now()
        reasoningChars += text.length
        // The collapsed line shows how the reasoning began: its first line, once that has arrived.
        if (!reasoningFirstLine.includes("\n") && reasoningFirstLine.length < 200) reasoningFirstLine += reasoningText.push(text)
        surface.activity(palette.dim(`✻ thinking… ${reasoningChars} characters`))
      }),
    assistantMessage: () => Effect.sync(settle),
    toolStarted: (raw) =>
      Effect.sync(() => {
        settle()
        const call = { ...raw, name: visible(raw.name), arguments: visibleValue(raw.arguments) }
        calls.set(call.id, call)
        surface.commit([`${palette.cyan("●")} ${palette.bold(callLine(call, surface.columns() - 3))}`])
        surface.activity(palette.dim(`running ${call.name}…`))
      }),
    // The call's line is already written (finished output is never redrawn): its progress shows on
    // the live line under it, in place, as often as the executor passes it on (four a second at most).
    toolProgress: (event) =>
      Effect.sync(() => {
        const call = calls.get(event.callId)
        if (call === undefined) return
        const width = Math.max(24, surface.columns() - activityFrame)
        const said = clipText(visible(describeProgress(event)), Math.floor(width / 2))
        // The progress is what changes: the name gives way first (the call's line above has it whole).
        const name = clipText(call.name, width - "running  · ".length - said.length)
        surface.activity(palette.dim(said === "" ? `running ${call.name}…` : `running ${name} · ${said}`))
      }),
    approval: (event) =>
      Effect.sync(() => {
        if (event.outcome === "denied") denied.add(event.callId)
        else if (event.by === "operator") previewed.add(event.callId)
      }),
    toolFinished: (raw: ToolResult, durationMs) =>
      Effect.sync(() => {
        surface.activity(undefined)
        const call = calls.get(raw.callId)
        const seen = { denied: denied.has(raw.callId), previewed: previewed.has(raw.callId) }
        surface.commit((agents?.finished(raw.callId) ?? []).map((line) => palette.dim(clipText(line, surface.columns() - 1))))
        surface.commit(resultLines(call, { ...raw, text: visible(raw.text) }, durationMs, seen, palette, surface.columns()))
        calls.delete(raw.callId)
        denied.delete(raw.callId)
        previewed.delete(raw.callId)
      }),
    retrying: (info) =>
      Effect.sync(() =>
        commitSettled([palette.yellow(`${visible(info.reason)} — retrying in ${formatDuration(info.delayMs)} (attempt ${info.attempt + 1} of ${info.maxAttempts})`)])
      ),
    note: (text) => Effect.sync(() => commitSettled([palette.yellow(visible(text))])),
    finished: () =>
      Effect.sync(() => {
        settle()
        surface.activity(undefined)
        agents?.clear()
      }),
    filesChanged: (event) => Effect.sync(() => event.files.length > 0 && commitSettled([filesChangedLine(event, palette)])),
    failed: (message) =>
      Effect.sync(() => {
        settle()
        surface.activity(undefined)
        surface.commit([palette.red(`crystal: ${visible(message)}`)])
      }),
    /** The turn was cancelled: what streamed stays on screen, marked. */
    interrupted: () => {
      settle()
      markdown = new MarkdownStream(palette)
      surface.activity(undefined)
      agents?.clear()
      surface.commit([palette.yellow("⏹ cancelled · the partial answer is kept")])
    },
    child: agents?.child
  }
}
