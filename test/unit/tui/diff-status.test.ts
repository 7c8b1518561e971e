import { describe, expect, it } from "vitest"
import { diffLines, withContext } from "../../../src/text/diff.ts"
import { statusLine } from "../../../src/tui/status-line.ts"
import { layoutEditor } from "../../../src/tui/editor-view.ts"
import { editorWith, insertAtomic, insertText, moveTo } from "../../../src/tui/editor-state.ts"
import { stripAnsi } from "../../../src/tui/width.ts"
import { acceptCompletion, findCompletion, type Completion } from "../../../src/tui/completion.ts"

describe("diff", () => {
  it("shows removed lines before added ones, with context", () => {
    const lines = diffLines("a\nb\nc\nd\ne\nf\ng", "a\nb\nc\nX\ne\nf\ng")
    expect(withContext(lines, 1).map((line) => `${line.kind}${line.text}`)).toEqual([" c", "-d", "+X", " e"])
  })

  it("marks a gap between two changes", () => {
    const lines = withContext(diffLines("1\n2\n3\n4\n5\n6\n7\n8", "one\n2\n3\n4\n5\n6\n7\neight"), 1)
    expect(lines.map((line) => `${line.kind}${line.text}`)).toEqual(["-1", "+one", " 2", " …", " 7", "-8", "+eight"])
  })
})

describe("status line", () => {
  const fresh = { input: 0, output: 0, usd: undefined }
  const info = { mode: "work", approval: "default", model: "local/m", promptSet: "default", contextUsed: 1234, contextWindow: 32768, sessionTokens: fresh, runningTasks: 2 }
  it("shows mode, approval, model, prompt set, context use and tasks", () => {
    expect(statusLine(info, 200)).toBe("work · approval default · local/m · prompts default · ctx 1.2k/32k 4% · 2 background tasks")
  })
  it("shows the session's cost when it is known, else its tokens alone", () => {
    expect(statusLine({ ...info, sessionTokens: { input: 12_345, output: 3_000, usd: 0.04321 } }, 200)).toContain("ctx 1.2k/32k 4% · $0.0432 · 2 background tasks")
    expect(statusLine({ ...info, sessionTokens: { input: 12_345, output: 3_000, usd: undefined } }, 200)).toContain("ctx 1.2k/32k 4% · 12k in 3k out · 2 background")
  })
  it("fits the width", () => {
    expect(statusLine(info, 40)).toHaveLength(40)
  })
})

describe("editor layout", () => {
  it("wraps long lines under the prompt mark and places the cursor", () => {
    const layout = layoutEditor(editorWith("abcdefghij\nxy"), 9)
    expect(layout.rows).toEqual(["› abcdef", "  ghij", "  xy"])
    expect([layout.cursorRow, layout.cursorColumn]).toEqual([2, 4])
    const start = layoutEditor(moveTo(editorWith("abc"), 0), 20)
    expect([start.cursorRow, start.cursorColumn]).toEqual([0, 2])
  })

  it("styles atomic spans without moving the cursor", () => {
    const state = insertText(insertAtomic(editorWith("see "), "[Image #1]"), "!")
    const layout = layoutEditor(state, 40, (text) => `<${text}>`)
    expect(layout.rows[0]).toContain("<[><I>")
    expect(stripAnsi(layout.rows[0] ?? "").replace(/[<>]/g, "")).toBe("› see [Image #1]!")
    expect(layout.cursorColumn).toBe(2 + "see [Image #1]!".length)
  })
})

describe("completion", () => {
  const commands = [
    { name: "plan", description: "plan mode" },
    { name: "promptset", description: "prompt sets" },
    { name: "help", description: "help" }
  ]
  const files = () => ["src/main.ts", "src/tui/app.ts", "README.md"]

  it("offers commands by prefix at the start of the input", () => {
    expect(findCompletion(editorWith("/p"), () => commands, files)?.items.map((item) => item.value)).toEqual(["/plan", "/promptset"])
    expect(findCompletion(editorWith("say /p"), () => commands, files)).toBeUndefined()
    expect(findCompletion(editorWith("/plan now"), () => commands, files)).toBeUndefined()
  })

  it("offers files for @mentions, best name match first, and inserts the path", () => {
    const state = editorWith("look at @app")
    const completion = findCompletion(state, () => commands, files)
    expect(completion?.items.map((item) => item.value)).toEqual(["@src/tui/app.ts"])
    expect(acceptCompletion(state, completion as Completion).text).toBe("look at @src/tui/app.ts ")
    expect(findCompletion(editorWith("mail a@b"), () => commands, files)).toBeUndefined()
  })
})
