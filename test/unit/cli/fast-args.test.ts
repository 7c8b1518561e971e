import * as Command from "@effect/cli/Command"
import * as NodeContext from "@effect/platform-node/NodeContext"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { commandTree } from "../../../src/cli/commands.ts"
import { parseFast } from "../../../src/cli/fast-args.ts"
import type { Invocation } from "../../../src/cli/flags.ts"

/** What the full @effect/cli tree makes of a command line, or undefined when it refuses it. */
const parseFull = async (argv: ReadonlyArray<string>): Promise<Invocation | undefined> => {
  let seen: Invocation | undefined
  const tree = commandTree(
    (invocation) => {
      seen = invocation
      return Effect.succeed(0)
    },
    () => {}
  )
  const program = Command.run(tree, { name: "Crystal", version: "test" })(["node", "crystal", ...argv]).pipe(
    Effect.provide(NodeContext.layer),
    Effect.catchAll(() => Effect.void)
  )
  await Effect.runPromise(program)
  return seen
}

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
