/// <reference types="bun" />
/**
 * Terminal rendering cost, in one process:
 * 1. Per streamed token: a 20,000-token Markdown answer through the terminal turn view (Markdown
 *    lines, wrapping, the live region redrawn after every token: the worst case, the app
 *    coalesces redraws to one per 16 ms frame) next to writing the raw tokens, both to /dev/null
 *    and both as the Effect the turn runs per delta. Runs interleaved; medians and ratio.
 * 2. Keypress to echo: decoding one key, updating the editor, laying out and writing the live
 *    region. This is Crystal's share of the latency only; the terminal's own is not measured.
 *    Once as the editor alone, once through the app's own parts (src/tui/app: the inbox, the input
 *    fiber, the key map, reduce, the frame of the whole state), from the bytes offered to the write.
 * Usage: bun scripts/bench/render.ts [--runs N] [--tokens N]
 */
import * as fs from "node:fs"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Queue from "effect/Queue"
import { readInput, type AppInput } from "../../src/tui/app/input.ts"
import { makeLiveRegion } from "../../src/tui/app/live.ts"
import { initialState } from "../../src/tui/app/state.ts"
import { makeStore } from "../../src/tui/app/store.ts"
import { makeHistory } from "../../src/tui/history.ts"
import { makeImageInput } from "../../src/tui/image-input.ts"
import { editorKey, emptyEditor, type EditorState } from "../../src/tui/editor-state.ts"
import { layoutEditor } from "../../src/tui/editor-view.ts"
import { decodeKeys } from "../../src/tui/keys.ts"
import { loadPalette } from "../../src/terminal/colors.ts"
import { Screen } from "../../src/tui/screen.ts"
import { statusLine } from "../../src/tui/status-line.ts"
import type { Terminal } from "../../src/tui/terminal.ts"
import { makeTurnView } from "../../src/tui/turn-view.ts"
import { flag, median, ms, ratio } from "./measure.ts"
import { emptyCommandList } from "../../src/prompts/command-files.ts"

const runs = flag("--runs", 9)
const tokenCount = flag("--tokens", 20_000)

const sink = fs.openSync("/dev/null", "w")
/** Called after each write, for a measurement that waits for the echo. */
let written: (() => void) | undefined
const write = (text: string) => {
  fs.writeSync(sink, text)
  written?.()
}

/** A Markdown answer cut into tokens of about four characters, as models stream them. */
const answerTokens = (count: number): Array<string> => {
  const paragraph = [
    "## Step {n}\n",
    "The **build** fails because `tsconfig.json` sets `strict` and the handler returns `any`. ",
    "Change the signature, then run the tests again.\n",
    "- check `src/main.ts`\n- update the **types**\n",
    "```ts\nconst value: number = compute(input)\nexport default value\n```\n\n"
  ].join("")
  const tokens: Array<string> = []
  for (let n = 0; tokens.length < count; n++) {
    const text = paragraph.replace("{n}", String(n))
    for (let i = 0; i < text.length && tokens.length < count; i += 4) tokens.push(text.slice(i, i + 4))
  }
  return tokens
}

const fakeTerminal: Terminal = {
  interactive: true,
  write,
  transcript: undefined,
  columns: () => 80,
  rows: () => 40,
  onResize: () => {},
  onInput: () => {},
  pauseInput: () => {},
  resumeInput: () => {},
  stream: process.stdout,
  restore: () => {}
}

const palette = await loadPalette(true)
const statusInfo = { mode: "work", approval: "default", model: "local/test-model", promptSet: "default", contextUsed: 12_345, contextWindow: 200_000, sessionTokens: { input: 0, output: 0, usd: undefined }, runningTasks: 0 }
const status = statusLine(statusInfo, 79)

/** "token": the live region is redrawn after every token; "frame": at most once per 16 ms, as the app schedules it. */
const rendered = (tokens: ReadonlyArray<string>, redraws: "token" | "frame"): number => {
  const screen = new Screen(fakeTerminal)
  let partial = ""
  let lastRedraw = 0
  const editor = layoutEditor(emptyEditor, 80)
  const redraw = () => {
    const now = performance.now()
    if (redraws === "frame" && now - lastRedraw < 16) return
    lastRedraw = now
    screen.live({ lines: [...(partial === "" ? [] : [partial]), "⠋ working… 3 s · Ctrl+C cancels", ...editor.rows, status], cursor: { row: 2, column: 2 } })
  }
  const view = makeTurnView(
    {
      commit: (lines) => screen.commit(lines),
      partial: (text) => {
        partial = text
        redraw()
      },
      activity: () => {},
      columns: () => 80
    },
    palette
  )
  const started = performance.now()
  for (const token of tokens) Effect.runSync(view.textDelta(token))
  const usage = { inputTokens: 0, outputTokens: 0 }
  Effect.runSync(view.finished({ sessionId: "bench", usage, usd: undefined, session: { usage, usd: undefined, unpriced: [], unattributed: false } }))
  return performance.now() - started
}

const raw = (tokens: ReadonlyArray<string>): number => {
  const started = performance.now()
  for (const token of tokens) Effect.runSync(Effect.sync(() => write(token)))
  return performance.now() - started
}

const tokens = answerTokens(tokenCount)
// Warm-up, so both sides run JIT-compiled code.
rendered(tokens, "token")
rendered(tokens, "frame")
raw(tokens)
const perToken: Array<number> = []
const perFrame: Array<number> = []
const rawTimes: Array<number> = []
for (let run = 0; run < runs; run++) {
  rawTimes.push(raw(tokens))
  perFrame.push(rendered(tokens, "frame"))
  perToken.push(rendered(tokens, "token"))
}
const rawMedian = median(rawTimes)
const perTokenUs = (value: number) => `${((value / tokenCount) * 1000).toFixed(2)} µs/token`
console.log(`streamed answer: ${tokenCount} tokens, ${runs} runs, medians`)
console.log(`  raw writes                            ${ms(rawMedian)}  (${perTokenUs(rawMedian)})`)
for (const [name, times] of [["renderer, redraw per 16 ms (the app)", perFrame], ["renderer, redraw every token (worst)", perToken]] as const) {
  const value = median(times)
  console.log(`  ${name.padEnd(37)} ${ms(value)}  (${perTokenUs(value)})  ratio ${ratio(value, rawMedian)}, +${perTokenUs(value - rawMedian)}`)
}

// Keypress to echo.
const screen = new Screen(fakeTerminal)
let state: EditorState = emptyEditor
const keyTimes: Array<number> = []
const typed = "explain why the build fails and fix it please ".repeat(20)
for (const char of typed) {
  const started = performance.now()
  for (const key of decodeKeys(char).keys) {
    const result = editorKey(state, key)
    if (result._tag === "Edited") state = result.state
  }
  const layout = layoutEditor(state, 80)
  screen.live({ lines: [...layout.rows, status], cursor: { row: layout.cursorRow, column: layout.cursorColumn } })
  keyTimes.push(performance.now() - started)
}
const sorted = [...keyTimes].sort((a, b) => a - b)
console.log(`keypress to echo (in process, ${keyTimes.length} keys, input grows to ${typed.length} characters):`)
console.log(`  median ${(median(keyTimes) * 1000).toFixed(1)} µs, p99 ${((sorted[Math.floor(sorted.length * 0.99)] ?? 0) * 1000).toFixed(1)} µs`)

/** The same keys through the app's parts: each read offered to the inbox, timed until the live region is written. */
const throughTheApp = Effect.scoped(
  Effect.gen(function* () {
    const inbox = yield* Queue.unbounded<AppInput>()
    const store = makeStore(initialState({ workspace: process.cwd(), historyPath: "/dev/null", history: makeHistory([]), files: () => [], commands: emptyCommandList }, statusInfo))
    const imageInput = yield* makeImageInput(inbox)
    const live = makeLiveRegion(fakeTerminal, palette, store.get, imageInput.status)
    // Typing only edits: no event of it asks for an effect (makeApp's handle would run them).
    const handle = (event: Parameters<typeof store.dispatch>[0]) =>
      Effect.sync(() => {
        if (store.dispatch(event).length > 0) throw new Error(`typing asked for effects: ${event._tag}`)
      })
    // Typed text never reaches the session (only an image paste does): no session's services are needed.
    yield* Effect.forkScoped(readInput(inbox, { store, live, palette, imageInput, handle, services: () => Context.empty() as never }))
    const times: Array<number> = []
    for (const char of typed) {
      const started = performance.now()
      yield* Effect.promise(
        () =>
          new Promise<void>((resolve) => {
            written = resolve
            Queue.unsafeOffer(inbox, { _tag: "Data", data: char })
          })
      )
      times.push(performance.now() - started)
    }
    written = undefined
    return times
  })
)
await Effect.runPromise(throughTheApp)
const appTimes = await Effect.runPromise(throughTheApp)
const appSorted = [...appTimes].sort((a, b) => a - b)
console.log(`  through the app's parts: median ${(median(appTimes) * 1000).toFixed(1)} µs, p99 ${((appSorted[Math.floor(appSorted.length * 0.99)] ?? 0) * 1000).toFixed(1)} µs, ratio ${ratio(median(appTimes), median(keyTimes))} to the editor alone`)
