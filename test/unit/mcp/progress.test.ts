/**
 * A real server's progress notifications through the executor to the renderer: server-everything's
 * trigger-long-running-operation reaches the renderer as toolProgress events of its call, and the
 * probe server's flood of notifications reaches it throttled.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as ManagedRuntime from "effect/ManagedRuntime"
import * as Scope from "effect/Scope"
import { afterEach, describe, expect, it } from "vitest"
import { executeToolCall, PROGRESS_INTERVAL_MS } from "../../../src/engine/executor.ts"
import type { ToolProgressEvent } from "../../../src/engine/renderer.ts"
import { makeMcpServers } from "../../../src/mcp/mcp-servers.ts"
import { planServer } from "../../../src/mcp/server-config.ts"
import { engineLayer } from "../../support/engine-layer.ts"
import { everythingServer, probeServer } from "../../support/mcp/servers.ts"
import { silentRenderer } from "../../support/renderer.ts"
import { tempDir } from "../../support/temp.ts"
import { noSecrets } from "../../../src/secrets/secrets.ts"

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const env = (): Record<string, string> => Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined))

/** server-everything and the probe server in one session whose renderer records what it is told. */
const session = async () => {
  const workspace = await tempDir()
  const scope = Effect.runSync(Scope.make())
  cleanups.push(() => Effect.runPromise(Scope.close(scope, Exit.void)))
  const plans = [
    planServer("everything", { command: process.execPath, args: [everythingServer, "stdio"] }, { workspace, env: process.env, baseEnv: env() }),
    planServer("probe", { command: process.execPath, args: [probeServer] }, { workspace, env: process.env, baseEnv: env() })
  ]
  const mcp = await Effect.runPromise(makeMcpServers({ plans, roots: () => [workspace], redactor: { secrets: Effect.succeed(noSecrets) } }).pipe(Scope.extend(scope)))
  await Effect.runPromise(mcp.beforeTurn)
  const progress: Array<ToolProgressEvent> = []
  const renderer = silentRenderer({ toolProgress: (event) => Effect.sync(() => void progress.push(event)) })
  const runtime = ManagedRuntime.make(
    engineLayer({
      workspace,
      tools: mcp.tools(),
      renderer,
      operator: { confirm: () => Effect.succeed(false), askQuestions: () => Effect.succeed({ _tag: "NoOperator" }), approve: () => Effect.succeed({ _tag: "NoOperator" }) }
    })
  )
  cleanups.push(() => runtime.dispose())
  const run = (id: string, name: string, args: Record<string, unknown>) =>
    runtime.runPromise(executeToolCall({ id, name, arguments: args }, { mode: "work", approval: "full" }))
  return { run, progress }
}

describe("MCP progress through the executor", () => {
  it("server-everything's trigger-long-running-operation reaches the renderer as progress events of its call", async () => {
    const { run, progress } = await session()
    const output = await run("c1", "mcp__everything__trigger-long-running-operation", { duration: 1.5, steps: 3 })
    expect(output.text).toBe("Long running operation completed. Duration: 1.5 seconds, Steps: 3.")
    // 0.5 s apart, past the throttle's interval: each one shows (the last may come with the result, after it, and is dropped).
    expect(progress.slice(0, 2)).toEqual([
      { callId: "c1", toolName: "mcp__everything__trigger-long-running-operation", progress: 1, total: 3 },
      { callId: "c1", toolName: "mcp__everything__trigger-long-running-operation", progress: 2, total: 3 }
    ])
  })

  it("a server flooding progress reaches the renderer throttled", async () => {
    const { run, progress } = await session()
    const started = performance.now()
    // The server waits 2 s before its result: time for a loaded machine to work through the backlog.
    const output = await run("f1", "mcp__probe__flood", { count: 2000, linger: 2000 })
    const elapsed = performance.now() - started
    expect(output.text).toBe("sent 2000")
    expect(progress[0]).toMatchObject({ callId: "f1", progress: 1, total: 2000, message: "item 1" })
    // The latest one held back is shown once its time comes, while the call still runs.
    expect(progress.at(-1)).toMatchObject({ progress: 2000, message: "item 2000" })
    // At most one per interval (bounded by the time the call took, whatever the machine's speed).
    expect(progress.length).toBeLessThanOrEqual(Math.ceil(elapsed / PROGRESS_INTERVAL_MS) + 1)
    const after = progress.length
    await new Promise((resolve) => setTimeout(resolve, PROGRESS_INTERVAL_MS + 100))
    expect(progress.length).toBe(after)
  })
})
