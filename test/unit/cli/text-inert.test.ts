/**
 * `crystal run`'s text mode: whatever came from outside (a note carrying an MCP server's
 * elicitation message, a provider's error, a tool's name, arguments, result and progress, the
 * model's reasoning) reaches stderr inert, on a terminal or not, colours on or off. The answer on
 * stdout is inert on a terminal and exact in a pipe.
 */
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { makeTextRenderer } from "../../../src/cli/render/text.ts"
import { loadPalette, plainPalette, type Palette } from "../../../src/terminal/colors.ts"
import { controlsIn, hostile, hostileShown, withoutColours } from "../../support/hostile-text.ts"

const render = (palette: Palette, stdoutTerminal: boolean) => {
  const stdout: Array<string> = []
  const stderr: Array<string> = []
  const view = makeTextRenderer(palette, { stdout: stdoutTerminal }, { stdout: (text) => void stdout.push(text), stderr: (text) => void stderr.push(text), now: () => 0 })
  for (const event of [
    view.note(`MCP server probe asked for input (${hostile}); declined: nobody to answer in crystal run.`),
    view.reasoningDelta(`thinks ${hostile}`),
    view.textDelta(`answer ${hostile}`),
    view.toolStarted({ id: "c1", name: `mcp__x__${hostile}`, arguments: { path: hostile } }),
    view.toolFinished({ _tag: "tool_result", id: "r1", callId: "c1", name: "t", text: `failed ${hostile}`, isError: true }, 3),
    view.retrying({ reason: `overloaded ${hostile}`, delayMs: 1000, attempt: 0, maxAttempts: 3 }),
    view.failed(`provider said ${hostile}`)
  ]) {
    Effect.runSync(event)
  }
  return { stdout: stdout.join(""), stderr: stderr.join("") }
}

describe("crystal run's text mode and text from outside", () => {
  it.each([
    ["colours off", false],
    ["colours on", true]
  ])("stderr holds no control character but its own colours (%s), and shows each sequence as symbols", async (_, colours) => {
    const painted = render(await loadPalette(colours), false).stderr
    expect(controlsIn(painted)).toEqual([])
    const stderr = withoutColours(painted)
    expect(stderr).toContain(`MCP server probe asked for input (${hostileShown})`)
    expect(stderr).toContain(`thinking: thinks ${hostileShown}`)
    expect(stderr).toContain(`→ mcp__x__${hostileShown} ${hostileShown}`)
    expect(stderr).toContain(`✗ failed ${hostileShown}`)
    expect(stderr).toContain(`overloaded ${hostileShown} — retrying`)
    expect(stderr).toContain(`crystal: provider said ${hostileShown}`)
  })

  it("stdout: the answer inert on a terminal, exact in a pipe", () => {
    expect(render(plainPalette, true).stdout).toBe(`answer ${hostileShown}\n`)
    expect(render(plainPalette, false).stdout).toBe(`answer ${hostile}\n`)
  })
})
