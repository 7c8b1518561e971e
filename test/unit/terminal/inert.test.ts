import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { plainPalette } from "../../../src/terminal/colors.ts"
import { makeTurnView } from "../../../src/tui/turn-view.ts"
import { inertJson, inertLine, InertStream, visible, visibleValue } from "../../../src/terminal/inert.ts"
import { loadPalette } from "../../../src/terminal/colors.ts"
import { controlsIn, hostile, hostileShown } from "../../support/hostile-text.ts"
import { MarkdownStream } from "../../../src/tui/markdown.ts"

describe("untrusted text on the terminal", () => {
  it("draws control characters as symbols and keeps newlines, tabs and CRLF line ends", () => {
    expect(visible("a\tb\r\nc\n")).toBe("a\tb\nc\n")
    expect(visible("rm -rf ~/work #\r    ls -la")).toBe("rm -rf ~/work #␍    ls -la")
    expect(visible("\x1b[2J\x1b]0;title\x07\x7f\x9b")).toBe("␛[2J␛]0;title␇␡\\x9b")
  })

  it("reaches every string inside tool arguments", () => {
    expect(visibleValue({ command: "ls\r", list: ["\x1b[A", 3], nested: { "k\x1b": null } })).toEqual({
      command: "ls␍",
      list: ["␛[A", 3],
      nested: { "k␛": null }
    })
  })

  it("is what the turn view commits for answers, calls and their output", () => {
    const committed: Array<string> = []
    const view = makeTurnView({ commit: (lines) => committed.push(...lines), partial: () => {}, activity: () => {}, columns: () => 80 }, plainPalette)
    Effect.runSync(view.textDelta("clear\x1b[2J screen\n"))
    Effect.runSync(view.toolStarted({ id: "c1", name: "bash", arguments: { command: "rm -rf x #\r ls" } }))
    Effect.runSync(view.toolFinished({ _tag: "tool_result", id: "r", callId: "c1", name: "bash", text: "exit 0\n\x1b[1Ahidden", isError: false }, 5))
    const screen = committed.join("\n")
    expect(screen).not.toMatch(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/)
    expect(screen).toContain("clear␛[2J screen")
    expect(screen).toContain("rm -rf x #␍ ls")
    expect(screen).toContain("␛[1Ahidden")
  })

  it("treats a CRLF split across two tokens as a line end in the terminal view", () => {
    const committed: Array<string> = []
    const partials: Array<string> = []
    const view = makeTurnView({ commit: (lines) => committed.push(...lines), partial: (text) => partials.push(text), activity: () => {}, columns: () => 80 }, plainPalette)
    Effect.runSync(view.textDelta("line one\r"))
    Effect.runSync(view.textDelta("\nline two\x1b[K"))
    expect(committed).toEqual(["line one"])
    expect(partials.at(-1)).toBe("line two␛[K")
  })

  it("holds a CR ending one token until the next shows whether it starts a CRLF", () => {
    const stream = new InertStream()
    expect(stream.push("line one\r")).toBe("line one")
    expect(stream.push("\nline two\r")).toBe("\nline two")
    expect(stream.push("x")).toBe("␍x")
    expect(stream.push("\r")).toBe("")
    expect(stream.push("\r\n")).toBe("␍\n")
  })

  it("drops a CR still held when the text ends", () => {
    const stream = new InertStream()
    expect(stream.push("last\r")).toBe("last")
    stream.end()
    expect(stream.push("next")).toBe("next")
  })

  it("gives the same text however the stream is cut", () => {
    const text = "a\r\nb\rc\x1b[2J\r\r\nd\x07\te\n"
    for (let cut = 0; cut <= text.length; cut++) {
      for (let second = cut; second <= text.length; second++) {
        const stream = new InertStream()
        const out = stream.push(text.slice(0, cut)) + stream.push(text.slice(cut, second)) + stream.push(text.slice(second))
        expect(out).toBe(visible(text))
      }
    }
  })

  it("is what the Markdown stream shows of a tail that ends in a CR", () => {
    const markdown = new MarkdownStream(plainPalette)
    expect(markdown.push("tail\r")).toEqual([])
    expect(markdown.partialPreview()).toBe("tail")
    expect(markdown.push("\x1b[K\n")).toEqual(["tail␍␛[K"])
  })

  it("a drawn line keeps the palette's styles and nothing else", async () => {
    const palette = await loadPalette(true)
    const line = `${palette.yellow(`note ${hostile}`)} ${palette.dim(palette.bold("x"))} \x1b[0m`
    expect(inertLine(line)).toBe(`${palette.yellow(`note ${hostileShown}`)} ${palette.dim(palette.bold("x"))} \x1b[0m`)
    // Styles the palette never writes (conceal, black on black, a cursor move that looks like one) are drawn.
    expect(inertLine("a\x1b[8mhidden\x1b[30;40mblack\x1b[2;5H")).toBe("a␛[8mhidden␛[30;40mblack␛[2;5H")
    expect(controlsIn(inertLine(`${palette.red(hostile)}\x9b31m`))).toEqual([])
    const plain = palette.cyan("nothing to do")
    expect(inertLine(plain)).toBe(plain)
  })

  it("the turn view's notes, failures, retries and tool names from outside are inert", () => {
    const committed: Array<string> = []
    const activity: Array<string | undefined> = []
    const view = makeTurnView({ commit: (lines) => committed.push(...lines), partial: () => {}, activity: (text) => activity.push(text), columns: () => 200 }, plainPalette)
    Effect.runSync(view.note(`MCP server probe asked for input (${hostile})`))
    Effect.runSync(view.toolStarted({ id: "c1", name: `mcp__x__${hostile}`, arguments: {} }))
    Effect.runSync(view.toolProgress({ callId: "c1", toolName: "t", progress: 1, message: hostile }))
    Effect.runSync(view.retrying({ reason: `overloaded ${hostile}`, delayMs: 1000, attempt: 0, maxAttempts: 3 }))
    Effect.runSync(view.failed(`provider said ${hostile}`))
    const screen = [...committed, ...activity.filter((text) => text !== undefined)].join("\n")
    expect(controlsIn(screen)).toEqual([])
    expect(screen).toContain(`MCP server probe asked for input (${hostileShown})`)
    expect(screen).toContain(`mcp__x__${hostileShown}`)
    expect(screen).toContain(`overloaded ${hostileShown} — retrying`)
    expect(screen).toContain(`crystal: provider said ${hostileShown}`)
  })

  it("JSON lines hold no control character, C1 and DEL included, and read back as the same value", () => {
    const event = { type: "note", text: hostile, nested: [`\x7f${hostile}`] }
    const json = inertJson(event)
    expect(json).not.toMatch(/[\x00-\x1f\x7f-\x9f]/)
    expect(json).toContain("\\u009b")
    expect(JSON.parse(json)).toEqual(event)
    expect(JSON.parse(inertJson(event, 2))).toEqual(event)
  })
})
