/** The approval step inside the executor: real tools, real files, scripted operators. */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { describe, expect, it } from "vitest"
import type { ApprovalMode } from "../../../src/approval/policy.ts"
import { executeToolCall } from "../../../src/engine/executor.ts"
import type { ApprovalAnswer, ApprovalRequest } from "../../../src/engine/operator.ts"
import type { ApprovalEvent } from "../../../src/engine/renderer.ts"
import { Toolbox } from "../../../src/engine/toolbox.ts"
import type { Mode } from "../../../src/session/document.ts"
import { makeBuiltinTools } from "../../../src/tools/builtin.ts"
import { SearchIndexCache } from "../../../src/search/cache.ts"
import { engineLayer } from "../../support/engine-layer.ts"
import { silentRenderer } from "../../support/renderer.ts"
import { tempDir } from "../../support/temp.ts"

const setup = async (answers: ReadonlyArray<ApprovalAnswer> = []) => {
  const root = await tempDir()
  const workspace = path.join(root, "ws")
  const outside = path.join(root, "outside")
  await fs.mkdir(workspace)
  await fs.mkdir(outside)
  await fs.writeFile(path.join(workspace, "inside.txt"), "inside\n")
  await fs.writeFile(path.join(outside, "secret.txt"), "secret\n")
  const asked: Array<ApprovalRequest> = []
  const events: Array<ApprovalEvent> = []
  const queue = [...answers]
  const services = engineLayer({
    workspace,
    tools: makeBuiltinTools(new SearchIndexCache()),
    renderer: silentRenderer({ approval: (event) => Effect.sync(() => events.push(event)) }),
    operator: {
      confirm: () => Effect.succeed(false),
      askQuestions: () => Effect.succeed({ _tag: "NoOperator" }),
      approve: (request) =>
        Effect.sync(() => {
          asked.push(request)
          return queue.shift() ?? { _tag: "NoOperator" as const }
        })
    }
  })
  // One runtime per test: the session's services (and its allow-for-this-session answers) live across calls.
  const runtime = ManagedRuntime.make(services)
  let n = 0
  const call = (name: string, args: unknown, settings: { mode?: Mode; approval?: ApprovalMode } = {}) =>
    runtime.runPromise(
      executeToolCall({ id: `c${n++}`, name, arguments: args }, { mode: settings.mode ?? "work", approval: settings.approval ?? "default" })
    )
  const planCatalog = () => runtime.runPromise(Effect.map(Toolbox, (toolbox) => toolbox.catalog("plan").map((tool) => tool.name)))
  return { workspace, outside, call, asked, events, planCatalog }
}

describe("authorization of tool calls", () => {
  it("runs reads inside the workspace without asking", async () => {
    const { call, asked, events } = await setup()
    expect(await call("read", { path: "inside.txt" })).toEqual({ text: "1\tinside" })
    expect(asked).toEqual([])
    expect(events.map((event) => [event.outcome, event.by])).toEqual([["allowed", "policy"]])
  })

  it("asks before reading outside, and reads exactly that file once allowed", async () => {
    const { call, outside, asked } = await setup([{ _tag: "AllowOnce" }])
    const secret = path.join(outside, "secret.txt")
    expect(await call("read", { path: secret })).toEqual({ text: "1\tsecret" })
    expect(asked[0]?.classification).toMatchObject({ risk: "high", authority: "read", scope: "outside", summary: `read ${secret}` })
  })

  it("refuses when nobody can answer, naming the mode that would allow it, and reads nothing", async () => {
    const { call, outside, events } = await setup()
    const result = await call("read", { path: path.join(outside, "secret.txt") })
    expect(result.isError).toBe(true)
    expect(result.text).toMatch(/^Denied: read .*secret\.txt needs the operator's approval in the default approval mode, and nobody can approve in this non-interactive run\. It would run without asking under --approval full\./)
    expect(result.text).not.toContain("secret\n")
    expect(events.at(-1)).toMatchObject({ outcome: "denied", by: "nobody to ask" })
  })

  it("passes the operator's message on a denial to the model", async () => {
    const { call, outside } = await setup([{ _tag: "Deny", message: "stay in the repo" }])
    const result = await call("list", { path: outside })
    expect(result).toEqual({ isError: true, text: `Denied by the operator: list ${outside}. Their message: stay in the repo` })
  })

  it("remembers an allow-for-this-session answer for the same tool and path", async () => {
    const { call, outside, asked } = await setup([{ _tag: "AllowSession" }])
    const secret = path.join(outside, "secret.txt")
    await call("read", { path: secret })
    expect((await call("read", { path: secret, offset: 1 })).text).toBe("1\tsecret")
    expect(asked).toHaveLength(1)
    await call("read", { path: path.join(outside, "other.txt") })
    expect(asked).toHaveLength(2)
  })

  it("offers no write tools in plan mode", async () => {
    const { call, planCatalog } = await setup()
    expect(await planCatalog()).toEqual(["read", "list", "tree", "glob", "grep", "search"])
    const result = await call("edit", { path: "inside.txt", old_string: "inside", new_string: "changed" }, { mode: "plan" })
    expect(result.text).toMatch(/^there is no tool named 'edit' in plan mode/)
  })

  it("in audit mode asks even for reads inside the workspace", async () => {
    const { call, asked } = await setup([{ _tag: "AllowOnce" }])
    await call("read", { path: "inside.txt" }, { approval: "audit" })
    expect(asked).toHaveLength(1)
  })

  it("fails a call whose path cannot be resolved before anything runs", async () => {
    const { call, asked } = await setup()
    const result = await call("read", { path: "bad\0path" })
    expect(result).toEqual({ isError: true, text: "read: cannot resolve path 'bad\0path': the path contains a NUL byte" })
    expect(asked).toEqual([])
  })
})
