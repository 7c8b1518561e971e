import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { ToolError } from "../../../src/tools/tool.ts"
import { capLines, cutLine } from "../../../src/tools/truncate.ts"
import { builtinTool, cleanupFixtures, makeFixture, run } from "./support.ts"

const readTool = builtinTool("read")

afterEach(cleanupFixtures)

const caps = { maxLines: 3, maxBytes: 1000, maxLineChars: 10 }

describe("cutLine", () => {
  it("keeps short lines and marks cut ones", () => {
    expect(cutLine("short", 10)).toBe("short")
    expect(cutLine("abcdefghijklmnop", 10)).toBe("abcdefghij… [+6 chars]")
    expect(cutLine("abc", 2, 50)).toBe("ab… [+48 chars]")
    // never splits a surrogate pair
    expect(cutLine("a😀bcdef", 2)).toBe("a… [+7 chars]")
  })
})

describe("capLines", () => {
  it("returns the text unchanged under the caps", async () => {
    const f = await makeFixture()
    expect(await Effect.runPromise(capLines(f.context, "t", ["a", "b"], caps, { unit: "lines" }))).toBe("a\nb")
    expect(f.spilled.size).toBe(0)
  })

  it("spills the full text and says how many lines are missing and where they are", async () => {
    const f = await makeFixture()
    const all = ["1", "2", "3", "4", "5"]
    const text = await Effect.runPromise(capLines(f.context, "grep", all, caps, { unit: "lines" }))
    const [file, saved] = [...f.spilled.entries()][0] ?? []
    expect(saved).toBe("1\n2\n3\n4\n5\n")
    expect(text).toBe(`1\n2\n3\n\n[2 more lines not shown (limit 3 lines); full output saved to ${file} — read it with offset=4]`)
    // the spilled file is readable with read (the fence grants the spill directory for reading)
    expect(await run(readTool, { path: file, offset: 4 }, f.context)).toBe("4\t4\n5\t5")
  })

  it("caps by bytes", async () => {
    const f = await makeFixture()
    const text = await Effect.runPromise(capLines(f.context, "t", ["aaaa", "bbbb", "cccc"], { maxLines: 10, maxBytes: 10, maxLineChars: 100 }, { unit: "entries" }))
    expect(text).toMatch(/^aaaa\nbbbb\n\n\[1 more entries not shown \(limit 10 bytes\); full output saved to .* — read it with offset=3\]$/)
  })

  it("spills when lines were cut even if all lines fit", async () => {
    const f = await makeFixture()
    const text = await Effect.runPromise(capLines(f.context, "t", ["x".repeat(25)], caps, { unit: "lines" }))
    expect(text).toMatch(/^xxxxxxxxxx… \[\+15 chars\]\n\n\[lines longer than 10 characters were cut; full output saved to .*t-1\.txt\]$/)
    expect([...f.spilled.values()]).toEqual([`${"x".repeat(25)}\n`])
  })

  it("still answers when the spill fails", async () => {
    const f = await makeFixture()
    const context = { ...f.context, spill: () => Effect.fail(new ToolError({ message: "disk full" })) }
    const text = await Effect.runPromise(capLines(context, "t", ["1", "2", "3", "4"], caps, { unit: "lines" }))
    expect(text).toBe("1\n2\n3\n\n[1 more lines not shown (limit 3 lines); the full output could not be saved: disk full]")
  })
})
