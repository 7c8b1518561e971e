/**
 * A shell command's output is redacted of the secrets its call's context carries (the session's
 * Redactor, read when the command starts), as it streams: nothing global decides, so two sessions
 * with different secrets redact differently, and a background log read from inside a key holds no
 * piece of it.
 */
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { makeBackgroundBash } from "../../../src/bash/background.ts"
import { sandboxStatus } from "../../../src/bash/sandbox.ts"
import { REDACTED } from "../../../src/secrets/redact.ts"
import { noSecrets, Secrets } from "../../../src/secrets/secrets.ts"
import { makeBashTools } from "../../../src/tools/bash-tools.ts"
import type { ToolContext } from "../../../src/tools/tool.ts"
import { classifyForTest, eventually, makeWorkspace, runTool } from "./support.ts"

const key = "sk-live-0123456789abcdef0123456789"
// The command spells the key in two halves: only the output holds it whole.
const printKey = `k1=sk-live-0123456789; k2=abcdef0123456789; echo "key=$k1$k2 done"`

const status = sandboxStatus()
const bwrap = status.available && status.kind === "bwrap"

const withTools = <A>(body: (tools: ReturnType<typeof makeBashTools>) => Effect.Effect<A, unknown>): Promise<A> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const background = yield* makeBackgroundBash({ timeoutSeconds: null, graceMs: 300 })
        return yield* body(makeBashTools({ background, bashTimeoutSeconds: 30, classifyCommand: classifyForTest }))
      })
    ) as Effect.Effect<A>
  )

describe("shell output and the call's secrets", () => {
  it("bash: the output is redacted of the context's secrets, and only of them", async () => {
    const ws = await makeWorkspace()
    const withKey: ToolContext = { ...ws.context, secrets: new Secrets([key]) }
    const without: ToolContext = { ...ws.context, secrets: noSecrets }
    const [redacted, plain] = await withTools((tools) =>
      Effect.all([runTool(tools.bash, { command: printKey }, withKey), runTool(tools.bash, { command: printKey }, without)])
    )
    expect(redacted.text).toBe(`exit 0\nkey=${REDACTED} done`)
    expect(plain.text).toBe(`exit 0\nkey=${key} done`)
  })

  it("bash_start: the task's log holds no piece of the key, read from any offset", async () => {
    const ws = await makeWorkspace()
    const context: ToolContext = { ...ws.context, secrets: new Secrets([key]) }
    const logs = await withTools((tools) =>
      Effect.gen(function* () {
        yield* runTool(tools.bashStart, { command: printKey }, context)
        yield* Effect.promise(() => eventually(async () => (await Effect.runPromise(runTool(tools.bashStatus, { id: "bg1" }, context))).text.includes("exited")))
        return yield* Effect.all([0, 4, 8].map((offset) => runTool(tools.bashLogs, { id: "bg1", offset }, context)))
      })
    )
    expect(logs[0]?.text).toContain(`key=${REDACTED} done`)
    for (const log of logs) for (let at = 0; at + 6 <= key.length; at++) expect(log.text).not.toContain(key.slice(at, at + 6))
  })

  it.skipIf(!bwrap)("bash in the session's sandbox (bwrap): the output is redacted the same way", async () => {
    const ws = await makeWorkspace()
    const context: ToolContext = { ...ws.context, secrets: new Secrets([key]), spillDir: ws.spillDir, sandbox: "read-only" }
    const output = await withTools((tools) => runTool(tools.bash, { command: printKey }, context))
    expect(output.text).toBe(`exit 0\nkey=${REDACTED} done`)
  })
})
