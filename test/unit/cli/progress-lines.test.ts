/** How a running call's progress reads: one line's text, and how often `crystal run`'s text mode writes one. */
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { makeTextRenderer, TEXT_PROGRESS_EVERY_MS } from "../../../src/cli/render/text.ts"
import { describeProgress } from "../../../src/cli/render/summary.ts"
import { plainPalette } from "../../../src/terminal/colors.ts"

describe("describeProgress", () => {
  it.each([
    [{ progress: 2, total: 5 }, "2/5"],
    [{ progress: 2, total: 5, message: "indexing src" }, "2/5 · indexing src"],
    [{ progress: 0.25, total: 1 }, "25%"],
    [{ progress: 3 }, "3"],
    [{ progress: 1.5 }, "1.5"],
    [{ progress: 3, total: 0 }, "3"],
    [{ message: "  two\nlines\there " }, "two lines here"],
    [{}, ""]
  ])("%j reads %j", (update, text) => {
    expect(describeProgress(update)).toBe(text)
  })

  it("clips to the width", () => {
    expect(describeProgress({ progress: 1, total: 2, message: "x".repeat(200) }, 20)).toBe(`1/2 · ${"x".repeat(13)}…`)
  })
})

describe("crystal run's text mode", () => {
  it("writes a progress line only once a call has run TEXT_PROGRESS_EVERY_MS, then at most one per interval, never after the result", () => {
    let clock = 1_000_000
    const stderr: Array<string> = []
    const view = makeTextRenderer(plainPalette, { stdout: false }, { stdout: () => {}, stderr: (text) => void stderr.push(text), now: () => clock })
    const progress = (step: number) => Effect.runSync(view.toolProgress({ callId: "c1", toolName: "mcp__s__slow", progress: step, total: 250 }))
    Effect.runSync(view.toolStarted({ id: "c1", name: "mcp__s__slow", arguments: {} }))
    // A report every 100 ms for 25 s: two lines, at 10 s and at 20 s.
    for (let step = 1; step <= 250; step++) {
      clock += 100
      progress(step)
    }
    Effect.runSync(view.toolFinished({ _tag: "tool_result", id: "r", callId: "c1", name: "mcp__s__slow", text: "done", isError: false }, 25_000))
    clock += TEXT_PROGRESS_EVERY_MS
    progress(251)
    expect(stderr.join("")).toBe(["→ mcp__s__slow {}", "  … 100/250 (10 s)", "  … 200/250 (20 s)", "  ✓ 1 line (25000 ms)", ""].join("\n"))
  })
})
