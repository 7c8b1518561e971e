/**
 * Ignore files that are not regular files, through the compiled binary: a FIFO as `sub/.gitignore`
 * used to block `search` (Crystal's main thread, past SIGTERM), `glob`, `tree` and `grep` (the
 * built-in walker's read, or rg's own open of the FIFO) until the process was killed. In plan mode,
 * where these tools run unasked, each call now completes, the FIFO read as absent. A run still
 * going after the timeout is killed and the test fails.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, runCrystal, writeLocalConfig } from "../support/crystal.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { makeFifo, unblockFifoAfter, type FifoGuard } from "../support/fifo.ts"

const fakeServer = useFakeServers()

const guards: Array<FifoGuard> = []
afterEach(() => {
  for (const guard of guards.splice(0)) guard.stop()
})

const files = { "a.txt": "needle in a\n", "sub/b.txt": "needle in b\n", "sub/inner/c.txt": "needle in c\n" }

describe("a FIFO as an ignore file in plan mode", () => {
  it.each([
    ["search", { query: "needle" }, ["a.txt", "sub/b.txt", "sub/inner/c.txt"]],
    ["glob", { pattern: "**/*.txt" }, ["a.txt", "sub/b.txt", "sub/inner/c.txt"]],
    ["tree", {}, ["b.txt", "c.txt"]],
    ["grep", { pattern: "needle" }, ["a.txt:1:needle in a", "sub/b.txt:1:needle in b", "sub/inner/c.txt:1:needle in c"]],
    // Below the FIFO: the ignore files above the target are read by Crystal, not by rg.
    ["grep", { pattern: "needle", path: "sub/inner" }, ["sub/inner/c.txt:1:needle in c"]]
  ])("%s %j completes and finds the files", async (tool, args, expected) => {
    const sandbox = await makeSandbox(files)
    const fifo = path.join(sandbox.workspace, "sub", ".gitignore")
    makeFifo(fifo)
    // Past the run's timeout: a run blocked on the FIFO is killed by the timeout, not freed by this.
    guards.push(unblockFifoAfter(fifo, 120))
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ toolCalls: [{ id: "call_1", name: tool, arguments: args }] }, { text: "Done." }])

    const result = await runCrystal(sandbox, ["run", "--format", "json", "--mode", "plan", "look"], { timeoutMs: 30_000 })
    expect(result.code).toBe(0)
    const toolResult = jsonLines(result.stdout).find((event) => event["type"] === "tool_result")
    expect(toolResult).toMatchObject({ name: tool, ok: true })
    for (const line of expected) expect(String(toolResult?.["output"])).toContain(line)
    expect(await fs.stat(fifo).then((stat) => stat.isFIFO())).toBe(true)
  })
})
