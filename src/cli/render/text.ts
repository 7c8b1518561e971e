/**
 * `crystal run` in text mode: the assistant's words on stdout (so they can be piped), progress,
 * reasoning, tool lines, notes, retries and failures on stderr. Every text written to stderr is
 * made inert (src/terminal/inert.ts) before it is painted — whole lines in `line`, reasoning
 * through its InertStream: notes carry what MCP servers, plugins and tool sets said (an
 * elicitation's message, a server's stderr), failures what a provider answered. Stderr is a log read by people,
 * on a terminal or later through `cat` or a CI page that interprets escapes just the same, so it is
 * inert whether or not it is a terminal; stdout is the answer as data, exact when piped.
 */
import * as Effect from "effect/Effect"
import { agentPathLabel, type AgentPath } from "../../agents/definition.ts"
import type { RendererShape } from "../../engine/renderer.ts"
import { writeStderr, writeStdout } from "../../terminal/output.ts"
import type { Palette } from "../../terminal/colors.ts"
import { InertStream, visible } from "../../terminal/inert.ts"
import { describeCall, describeProgress, describeResult } from "./summary.ts"
import { filesChangedText } from "../../engine/files-changed.ts"

/**
 * How often a running call's progress gets a line on stderr, and how long a call runs before the
 * first one: stderr here is a log (often a CI job's), so a short call shows none and a long one
 * shows it is alive without a line per notification.
 */
export const TEXT_PROGRESS_EVERY_MS = 10_000

const seconds = (ms: number): string => `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`

/** Where the renderer writes and what time it is: the process's streams and clock, a test's own. */
export interface TextSinks {
  readonly stdout: (text: string) => void
  readonly stderr: (text: string) => void
  readonly now: () => number
}

const processSinks: TextSinks = { stdout: writeStdout, stderr: writeStderr, now: Date.now }

/**
 * `terminals.stdout`: whether stdout is a terminal. There the model's answer is made inert
 * (control characters drawn as symbols); a pipe or file gets it exactly. Stderr is always inert.
 */
export const makeTextRenderer = (
  style: Palette,
  terminals: { readonly stdout: boolean } = { stdout: false },
  sinks: TextSinks = processSinks
): RendererShape => {
  const now = sinks.now
  const answer = new InertStream()
  const thinking = new InertStream()
  const forStdout = (text: string) => (terminals.stdout ? answer.push(text) : text)
  // Whether the last thing written to each stream ended a line, so output never runs together.
  let stdoutAtLineStart = true
  let stderrAtLineStart = true
  let reasoning = false
  // Per running call: when it started and when its progress last got a line.
  const running = new Map<string, { readonly started: number; shown: number }>()
  const out = (text: string) => {
    if (text === "") return
    sinks.stdout(text)
    stdoutAtLineStart = text.endsWith("\n")
  }
  /** Only what this file made inert, and its own styling, reaches here. */
  const err = (text: string) => {
    if (text === "") return
    sinks.stderr(text)
    stderrAtLineStart = text.endsWith("\n")
  }
  const endReasoning = () => {
    if (!reasoning) return
    reasoning = false
    thinking.end()
    if (!stderrAtLineStart) err("\n")
  }
  /** One line on stderr: `text` made inert, then painted. */
  const line = (paint: (text: string) => string, text: string) =>
    Effect.sync(() => {
      endReasoning()
      if (!stdoutAtLineStart) out("\n")
      if (!stderrAtLineStart) err("\n")
      err(`${paint(visible(text))}\n`)
    })
  return {
    sessionStarted: () => Effect.void,
    textDelta: (text) =>
      Effect.sync(() => {
        endReasoning()
        out(forStdout(text))
      }),
    reasoningDelta: (text) =>
      Effect.sync(() => {
        if (!reasoning) {
          reasoning = true
          if (!stderrAtLineStart) err("\n")
          err(style.dim("thinking: "))
        }
        err(style.dim(thinking.push(text)))
      }),
    assistantMessage: () =>
      Effect.sync(() => {
        answer.end()
        endReasoning()
        if (!stdoutAtLineStart) out("\n")
      }),
    toolStarted: (call) =>
      Effect.suspend(() => {
        const at = now()
        running.set(call.id, { started: at, shown: at })
        return line(style.cyan, `→ ${describeCall(call)}`)
      }),
    toolProgress: (event) =>
      Effect.suspend(() => {
        const call = running.get(event.callId)
        const at = now()
        if (call === undefined || at - call.shown < TEXT_PROGRESS_EVERY_MS) return Effect.void
        call.shown = at
        return line(style.dim, `  … ${describeProgress(event) || "still running"} (${seconds(at - call.started)})`)
      }),
    // A denial shows in the result line; an approval the operator gave was seen as it was given.
    approval: () => Effect.void,
    filesChanged: (event) => (event.files.length === 0 ? Effect.void : line(style.dim, `turn ${event.turn}: ${filesChangedText(event.files)}`)),
    toolFinished: (result, durationMs) =>
      Effect.suspend(() => {
        running.delete(result.callId)
        return result.isError ? line(style.red, `  ✗ ${describeResult(result)}`) : line(style.dim, `  ✓ ${describeResult(result)} (${durationMs} ms)`)
      }),
    retrying: (info) => line(style.yellow, `${info.reason} — retrying in ${seconds(info.delayMs)} (attempt ${info.attempt + 1} of ${info.maxAttempts})`),
    note: (text) => line(style.yellow, text),
    finished: () => Effect.sync(endReasoning),
    failed: (message) => line(style.red, `crystal: ${message}`),
    child: (path) => childLog(path, line, style)
  }
}

/**
 * A subagent's part of the log (issue 26): its tool calls and results on stderr, each marked with
 * its path; its answer reaches the parent as the task's result, so none of its text is printed.
 */
const childLog = (path: AgentPath, line: (paint: (text: string) => string, text: string) => Effect.Effect<void>, style: Palette): RendererShape => {
  const mark = `[${agentPathLabel(path)}]`
  return {
    sessionStarted: () => Effect.void,
    textDelta: () => Effect.void,
    reasoningDelta: () => Effect.void,
    assistantMessage: () => Effect.void,
    toolStarted: (call) => line(style.cyan, `${mark} → ${describeCall(call)}`),
    toolProgress: () => Effect.void,
    approval: () => Effect.void,
    toolFinished: (result, durationMs) =>
      result.isError ? line(style.red, `${mark}   ✗ ${describeResult(result)}`) : line(style.dim, `${mark}   ✓ ${describeResult(result)} (${durationMs} ms)`),
    retrying: (info) => line(style.yellow, `${mark} ${info.reason} — retrying in ${seconds(info.delayMs)}`),
    note: (text) => line(style.yellow, `${mark} ${text}`),
    finished: () => Effect.void,
    failed: (message) => line(style.red, `${mark} ${message}`),
    child: (deeper) => childLog(deeper, line, style)
  }
}
