import { describe, expect, it } from "vitest"
import { parseFast } from "../../../src/cli/fast-args.ts"
import { parseFull } from "./parse-full.ts"

const accepted: ReadonlyArray<ReadonlyArray<string>> = [
  [],
  ["run", "explain this repo"],
  ["run"],
  ["run", "--format", "json", "hi"],
  ["run", "--format=json", "hi"],
  ["run", "--model", "local/qwen3-coder", "hi"],
  ["run", "--model=openrouter/anthropic/claude", "hi"],
  ["run", "--disable-tool", "grep", "--disable-tool", "tree", "hi"],
  ["run", "--resume", "20261130-001547-a1b2c3", "go on"],
  ["run", "--continue", "go on"],
  ["run", "--continue", "--resume", "x", "both"],
  ["--model", "local/m"],
  ["--continue"],
  ["--format", "json"],
  ["--resume", "2026"],
  ["run", "hi", "--model", "local/m"],
  ["run", "--mode", "plan", "--approval", "full", "plan it"],
  ["--mode=work", "--approval=edit"],
  ["run", "--approval", "review", "hi"],
  ["run", "--output-schema", "answer.json", "--format", "json", "hi"],
  ["run", "--output-schema=answer.json", "hi"],
  ["--approval=review"],
  ["space"],
  ["space", "../other"],
  ["space", "--model", "local/m", "../other"],
  ["space", "--continue", "--mode=plan"],
  ["space", "../other", "--disable-tool", "grep"],
  // Where the fast path and the flag check used to disagree: `--` ends the flags, and a word that
  // only starts with a dash is a prompt or a value, as @effect/cli takes it.
  ["run", "--", "--literal"],
  ["run", "--", "-x"],
  ["run", "--model", "a/b", "--", "--mode"],
  ["run", "hi", "--"],
  ["space", "--", "-dir"],
  ["run", "-5"],
  ["run", "- a prompt that starts with a dash"],
  ["run", "--model=-x", "hi"],
  ["run", "--model", "-", "hi"]
]

describe("start-up fast path", () => {
  it.each(accepted)("takes %j and agrees with @effect/cli", async (...argv) => {
    const fast = parseFast(argv)
    expect(fast).toBeDefined()
    expect(await parseFull(argv)).toEqual(fast)
  })

  it("also takes --disable-tool=NAME, which @effect/cli 0.77 mis-parses before a prompt", async () => {
    const argv = ["run", "--disable-tool=grep", "hi"]
    expect(parseFast(argv)).toMatchObject({ _tag: "Run", prompt: "hi", flags: { disableTool: ["grep"] } })
    expect(await parseFull(argv)).toBeUndefined()
  })

  // A prompt that starts with a dash, then flags: @effect/cli reads no flag after it (work mode,
  // default approval); the fast path keeps them, the safe reading (a change from before issue 24).
  it.each([
    [["run", "-5", "--mode", "plan"], { mode: "plan" }],
    [["run", "- a dash prompt", "--approval", "audit"], { approval: "audit" }],
    [["run", "-5", "--continue", "--format", "json"], { continue: true, format: "json" }]
  ] as const)("the fast path wins over @effect/cli: %j keeps its flags", async (argv, flags) => {
    expect(parseFast(argv)).toMatchObject({ prompt: argv[0] === "run" ? argv[1] : undefined, flags })
    expect((await parseFull(argv))?.flags).not.toMatchObject(flags)
  })

  const deferred: ReadonlyArray<ReadonlyArray<string>> = [
    ["--help"],
    ["run", "--help"],
    ["run", "--format", "xml", "hi"],
    ["run", "--model"],
    ["run", "--unknown", "hi"],
    ["run", "one", "two"],
    ["run", "--model", "a", "--model", "b", "hi"],
    ["sessions", "list"],
    ["somecommand"],
    ["--version", "--model", "x"],
    ["run", "--model=", "hi"],
    ["run", "--resume=", "hi"],
    ["run", "--model", "--", "hi"],
    ["run", "--approval", "yolo", "hi"],
    ["run", "--mode", "yolo", "hi"],
    ["run", "--prompt-attachments", "maybe", "hi"],
    ["--prompt-set", "a", "--prompt-set", "b"],
    ["--prompt-set"],
    ["promptsets", "list"],
    ["prompt-attachments", "enable", "style"],
    ["space", "one", "two"],
    ["space", "--help"]
  ]

  it.each(deferred)("leaves %j to @effect/cli", (...argv) => {
    expect(parseFast(argv)).toBeUndefined()
  })

  it("accepts --approval review", async () => {
    const argv = ["run", "--approval", "review", "hi"]
    expect(parseFast(argv)).toMatchObject({ _tag: "Run", prompt: "hi", flags: { approval: "review" } })
    expect(await parseFull(argv)).toMatchObject({ _tag: "Run", prompt: "hi", flags: { approval: "review" } })
  })
})
