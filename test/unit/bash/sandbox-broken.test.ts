/**
 * A bwrap that is installed but cannot create namespaces (a container without user namespaces):
 * the first sandboxed call says so once and runs as it would without a sandbox. The broken bwrap
 * is a script put first on PATH before this file's first sandboxed call (the probe runs once per
 * process, and vitest gives each test file its own module instances).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterAll, describe, expect, it } from "vitest"
import { makeBackgroundBash } from "../../../src/bash/background.ts"
import { makeBashTools } from "../../../src/tools/bash-tools.ts"
import { classifyForTest, makeWorkspace, runTool } from "./support.ts"

const savedPath = process.env.PATH
afterAll(() => {
  process.env.PATH = savedPath
})

describe.skipIf(process.platform !== "linux")("a bwrap that cannot sandbox", () => {
  it("is reported once, by the first sandboxed call, which still runs", async () => {
    const ws = await makeWorkspace()
    const bin = path.join(path.dirname(ws.workspace), "bin")
    fs.mkdirSync(bin)
    fs.writeFileSync(path.join(bin, "bwrap"), "#!/bin/sh\necho 'bwrap: No permissions to create new namespace' >&2\nexit 1\n", { mode: 0o755 })
    process.env.PATH = `${bin}${path.delimiter}${savedPath ?? ""}`
    fs.writeFileSync(path.join(ws.workspace, "a.txt"), "alpha\n")
    const context = { ...ws.context, sandbox: "read-only" as const }
    const texts = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const background = yield* makeBackgroundBash({ timeoutSeconds: null })
          const tools = makeBashTools({ background, bashTimeoutSeconds: 30, classifyCommand: classifyForTest })
          const first = yield* runTool(tools.bash, { command: "cat a.txt" }, context)
          const second = yield* runTool(tools.bash, { command: "cat a.txt" }, context)
          return [first.text, second.text]
        })
      )
    )
    expect(texts).toEqual([
      "exit 0\nalpha\n[not sandboxed: bwrap cannot create a sandbox here (bwrap: No permissions to create new namespace); the command classifier alone decided]",
      "exit 0\nalpha"
    ])
  })
})
