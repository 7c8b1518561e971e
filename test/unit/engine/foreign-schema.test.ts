/** A tool whose parameters are someone else's JSON Schema: its check decides, and the arguments reach it whole. */
import * as Effect from "effect/Effect"
import * as ManagedRuntime from "effect/ManagedRuntime"
import { describe, expect, it } from "vitest"
import { executeToolCall } from "../../../src/engine/executor.ts"
import { foreignSchema } from "../../../src/tools/params.ts"
import { defineTool, everyMode } from "../../../src/tools/tool.ts"
import { touchesNothing } from "../../support/classification.ts"
import { engineLayer } from "../../support/engine-layer.ts"
import { silentRenderer } from "../../support/renderer.ts"
import { tempDir } from "../../support/temp.ts"

describe("foreign JSON Schema parameters", () => {
  it("runs the tool with the arguments as sent when the check passes, and returns the check's complaint when not", async () => {
    const received: Array<unknown> = []
    const tool = defineTool({
      name: "lookup",
      description: "test",
      modes: everyMode,
      parameters: foreignSchema({ type: "object", properties: { id: { type: "string" } } }, (input) =>
        typeof (input as { id?: unknown }).id === "string" ? undefined : "id: expected a string"
      ),
      classify: touchesNothing,
      run: (args) => Effect.sync(() => (received.push(args), { text: "found" }))
    })
    const workspace = await tempDir()
    const runtime = ManagedRuntime.make(
      engineLayer({ workspace, tools: [tool], renderer: silentRenderer(), operator: { confirm: () => Effect.succeed(false), askQuestions: () => Effect.succeed({ _tag: "NoOperator" }), approve: () => Effect.succeed({ _tag: "NoOperator" }) } })
    )
    const call = (args: unknown) => runtime.runPromise(executeToolCall({ id: "c1", name: "lookup", arguments: args }, { mode: "work", approval: "default" }))
    expect(await call({ id: "a", extra: [1, 2] })).toEqual({ text: "found" })
    expect(received).toEqual([{ id: "a", extra: [1, 2] }])
    expect(await call({ id: 3 })).toEqual({ isError: true, text: "lookup: invalid arguments: id: expected a string" })
    expect(received).toHaveLength(1)
    await runtime.dispose()
  })
})
