/**
 * `crystal run` in text mode: the assistant's words on stdout (so they can be piped), progress,
 * reasoning and tool lines on stderr.
 */
import * as Effect from "effect/Effect"
import type { RendererShape } from "../../engine/renderer.ts"
import { writeStderr, writeStdout } from "../../terminal/output.ts"
import type { Palette } from "../../terminal/colors.ts"
import { InertStream, visible } from "../../terminal/inert.ts"
import { describeCall, describeProgress, describeResult } from "./summary.ts"

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
 * `terminals`: which streams are terminals. There the model's text, reasoning and tool lines are
 * made inert (control characters drawn as symbols); a pipe or file gets the text exactly.
 */
export const makeTextRenderer = (
  style: Palette,
  terminals: { readonly stdout: boolean; readonly stderr: boolean } = { stdout: false, stderr: false },
  sinks: TextSinks = processSinks
): RendererShape => {
  const now = sinks.now
  const answer = new InertStream()
  const thinking = new InertStream()
  const forStdout = (text: string) => (terminals.stdout ? answer.push(text) : text)
  const forStderr = (text: string) => (terminals.stderr ? visible(text) : text)
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
  const line = (text: string) =>
    Effect.sync(() => {
      endReasoning()
      if (!stdoutAtLineStart) out("\n")
      if (!stderrAtLineStart) err("\n")
      err(`${text}\n`)
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
        err(style.dim(terminals.stderr ? thinking.push(text) : text))
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
        return line(style.cyan(`→ ${forStderr(describeCall(call))}`))
      }),
    toolProgress: (event) =>
      Effect.suspend(() => {
        const call = running.get(event.callId)
        const at = now()
        if (call === undefined || at - call.shown < TEXT_PROGRESS_EVERY_MS) return Effect.void
        call.shown = at
        return line(style.dim(`  … ${forStderr(describeProgress(event) || "still running")} (${seconds(at - call.started)})`))
      }),
    // A denial shows in the result line; an approval the operator gave was seen as it was given.
    approval: () => Effect.void,
    toolFinished: (result, durationMs) =>
      Effect.suspend(() => {
        running.delete(result.callId)
        return line(
          result.isError
            ? style.red(`  ✗ ${forStderr(describeResult(result))}`)
            : style.dim(`  ✓ ${forStderr(describeResult(result))} (${durationMs} ms)`)
        )
      }),
    retrying: (info) =>
      line(style.yellow(`${info.reason} — retrying in ${seconds(info.delayMs)} (attempt ${info.attempt + 1} of ${info.maxAttempts})`)),
    note: (text) => line(style.yellow(text)),
    finished: () => Effect.sync(endReasoning),
    failed: (message) => line(style.red(`crystal: ${message}`))
  }
}
