import { describe, expect, it } from "vitest"
import { narrowTools, toolPattern, unmatchedPatterns } from "../../../src/agents/narrow.ts"

const parent = ["read", "grep", "edit", "bash", "bash_start", "mcp__files__read", "mcp__files__write", "mcp__git__log"]

describe("narrowTools", () => {
  it.each([
    [undefined, parent],
    [[], []],
    [["*"], parent],
    [["read", "grep"], ["read", "grep"]],
    [["grep", "read"], ["read", "grep"]],
    [["mcp__files__*"], ["mcp__files__read", "mcp__files__write"]],
    [["bash*"], ["bash", "bash_start"]],
    [["*__read"], ["mcp__files__read"]],
    [["write", "web_fetch", "mcp__other__*"], []],
    [["Read"], []],
    [["read", "read", "re*"], ["read"]],
    [["mcp__files__.*"], []],
    [["mcp__files__rea?"], []]
  ] as const)("%j against the parent's tools gives %j", (patterns, expected) => {
    expect(narrowTools(parent, patterns)).toEqual(expected)
  })

  it("never gives a tool the parent lacks, whatever the patterns", () => {
    const patterns = [["*"], ["write", "*"], ["bash", "write", "edit"], ["mcp__*", "task"], ["["], ["(.*)"], ["\\"], ["*write*"]]
    for (const list of patterns) for (const name of narrowTools(["read", "grep"], list)) expect(["read", "grep"]).toContain(name)
    expect(narrowTools(["read", "grep"], ["write", "edit", "bash"])).toEqual([])
  })

  it("matches whole names, regular-expression characters literally", () => {
    expect(toolPattern("a.b")("a.b")).toBe(true)
    expect(toolPattern("a.b")("axb")).toBe(false)
    expect(toolPattern("read")("reader")).toBe(false)
    expect(toolPattern("*read")("mcp__x__read")).toBe(true)
  })

  it("names the patterns that match nothing", () => {
    expect(unmatchedPatterns(parent, ["read", "writ*", "mcp__files__*", "task"])).toEqual(["writ*", "task"])
    expect(unmatchedPatterns(parent, undefined)).toEqual([])
  })
})
