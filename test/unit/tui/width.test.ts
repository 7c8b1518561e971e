import { spawnSync } from "node:child_process"
import * as path from "node:path"
import stringWidth from "string-width"
import { describe, expect, it } from "vitest"
import { layoutEditor } from "../../../src/tui/editor-view.ts"
import { emptyEditor } from "../../../src/tui/editor-state.ts"
import { clipText, textWidth, wrapLine } from "../../../src/tui/width.ts"
import { widthTable } from "../../support/width-table.ts"

const root = path.resolve(import.meta.dirname, "..", "..", "..")

describe("text width", () => {
  it.each(widthTable.map((entry) => [entry.kind, entry.text, entry.width] as const))("%s %s takes %i columns", (_kind, text, width) => {
    expect(textWidth(text)).toBe(width)
  })

  it("does not count style escapes", () => {
    expect(textWidth("\x1b[1m✅\x1b[22m ok")).toBe(5)
  })

  it("agrees with Bun.stringWidth on the whole table, and measures the same under Bun", () => {
    const bun = path.join(root, "node_modules", ".bin", process.platform === "win32" ? "bun.exe" : "bun")
    const run = spawnSync(bun, [path.join(root, "test", "support", "bun-widths.ts")], { cwd: root, encoding: "utf8" })
    expect(run.stderr).toBe("")
    expect(run.status).toBe(0)
    const measured = JSON.parse(run.stdout) as ReadonlyArray<{ text: string; bun: number; module: number }>
    expect(measured.map((entry) => entry.text)).toEqual(widthTable.map((entry) => entry.text))
    const disagreeing = measured.filter((entry) => entry.bun !== stringWidth(entry.text) || entry.module !== entry.bun)
    expect(disagreeing).toEqual([])
  })
})

describe("wrapping and clipping by grapheme cluster", () => {
  it("never cuts a ZWJ family, a flag or a skin tone apart", () => {
    const rows = wrapLine("ab👨‍👩‍👧🇫🇷👍🏽", 3)
    expect(rows).toEqual(["ab", "👨‍👩‍👧", "🇫🇷", "👍🏽"])
    for (const row of rows) expect(textWidth(row)).toBeLessThanOrEqual(3)
  })

  it("counts an emoji as two columns when wrapping words", () => {
    expect(wrapLine("done ✅ ok", 6)).toEqual(["done ", "✅ ok"])
  })

  it("keeps combining marks on their letter", () => {
    expect(wrapLine("e\u0301e\u0301e\u0301", 2)).toEqual(["e\u0301e\u0301", "e\u0301"])
  })

  it("clips before a wide cluster that would overflow", () => {
    expect(clipText("ab✅✅", 4)).toBe("ab…")
    expect(clipText("👨‍👩‍👧👨‍👩‍👧", 3)).toBe("👨‍👩‍👧…")
  })

  it("puts the editor's cursor after an emoji at its real column", () => {
    const text = "✅👨‍👩‍👧x"
    const layout = layoutEditor({ ...emptyEditor, text, cursor: text.length - 1 }, 40)
    expect(layout.cursorColumn).toBe("› ".length + 4)
  })
})
