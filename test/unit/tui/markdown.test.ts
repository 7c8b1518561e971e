import { describe, expect, it } from "vitest"
import { initialMarkdown, MarkdownStream, renderMarkdownLine } from "../../../src/tui/markdown.ts"
import { loadPalette, plainPalette } from "../../../src/terminal/colors.ts"
import { stripAnsi, textWidth, wrapLine } from "../../../src/tui/width.ts"

const colour = await loadPalette(true)
const plain = plainPalette

describe("markdown line renderer", () => {
  it.each([
    ["# Title", "Title"],
    ["Some **bold** and `code`.", "Some bold and code."],
    ["- item with **bold**", "• item with bold"],
    ["  2. second", "  2. second"],
    ["an **unclosed marker", "an **unclosed marker"],
    ["a lone ` backtick", "a lone ` backtick"]
  ])("renders %j", (line, visible) => {
    const rendered = renderMarkdownLine(line, initialMarkdown, colour).text
    expect(stripAnsi(rendered)).toBe(visible)
  })

  it("styles what it recognises", () => {
    expect(renderMarkdownLine("Some **bold**", initialMarkdown, colour).text).toBe(`Some ${colour.bold("bold")}`)
    expect(renderMarkdownLine("use `npm test`", initialMarkdown, colour).text).toBe(`use ${colour.cyan("npm test")}`)
  })

  it("keeps the Markdown source as it is without colour", () => {
    for (const line of ["# Title", "Some **bold**", "- item", "```ts"]) {
      expect(renderMarkdownLine(line, initialMarkdown, plain).text).toBe(line)
    }
  })

  it("treats fenced code as code: no inline styling inside, the fence closes it", () => {
    const stream = new MarkdownStream(colour)
    const lines = stream.push("Text\n```ts\nconst **x** = `y`\n```\nafter **b**\n")
    expect(lines.map(stripAnsi)).toEqual(["Text", "╭─ ts", "│ const **x** = `y`", "╰─", "after b"])
  })

  it("styles a line only when it is complete, however the deltas cut it", () => {
    const whole = new MarkdownStream(colour).push("Say **hello** to `x`\n")
    const stream = new MarkdownStream(colour)
    const pieces = ["Say *", "*hel", "lo*", "* to `", "x`", "\n"]
    const out: Array<string> = []
    for (const piece of pieces) {
      out.push(...stream.push(piece))
      if (!piece.endsWith("\n")) expect(stream.partialPreview()).toBe(stream.partial)
    }
    expect(out).toEqual(whole)
    expect(stream.partial).toBe("")
  })

  it("renders the unfinished tail when the message ends", () => {
    const stream = new MarkdownStream(plain)
    expect(stream.push("no newline at **the end**")).toEqual([])
    expect(stream.end()).toEqual(["no newline at **the end**"])
  })
})

describe("width and wrapping", () => {
  it("measures escapes as nothing and wide characters as two columns", () => {
    expect(textWidth(colour.bold("abc"))).toBe(3)
    expect(textWidth("日本")).toBe(4)
  })

  it("wraps styled text into rows that each close and reopen their style", () => {
    const rows = wrapLine(colour.green("abcdefgh"), 3)
    expect(rows.map(stripAnsi)).toEqual(["abc", "def", "gh"])
    for (const row of rows) expect(textWidth(row)).toBeLessThanOrEqual(3)
    expect(rows[1]?.startsWith("\x1b[32m")).toBe(true)
  })
})

describe("word wrapping", () => {
  it("breaks at spaces when it can, mid-word when it must", () => {
    expect(wrapLine("the quick brown fox jumps", 10)).toEqual(["the quick ", "brown fox ", "jumps"])
    expect(wrapLine("abcdefghijkl mn", 5)).toEqual(["abcde", "fghij", "kl mn"])
    expect(wrapLine("four five", 4)).toEqual(["four", "five"])
  })

  it("keeps styles across a break at a space", () => {
    const rows = wrapLine(colour.green("aaaa bbbb cccc"), 6)
    expect(rows.map(stripAnsi)).toEqual(["aaaa ", "bbbb ", "cccc"])
    expect(rows[1]?.startsWith("\x1b[32m")).toBe(true)
    for (const row of rows) expect(textWidth(row)).toBeLessThanOrEqual(6)
  })
})
