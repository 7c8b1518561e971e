/**
 * The approval dialog when a subagent asks (issue 26): it names the agent's path, in the lines
 * above the choices and in the question itself; the root session's own asks look as before.
 * Headless (`crystal run`), a child's ask is refused like the root's.
 */
import * as Effect from "effect/Effect"
import { PassThrough } from "node:stream"
import { describe, expect, it } from "vitest"
import { headlessOperator } from "../../../layers/headless.ts"
import type { ApprovalRequest } from "../../../src/engine/operator.ts"
import { plainPalette } from "../../../src/terminal/colors.ts"
import { approvalLines, makeDialogs } from "../../../src/tui/dialogs.ts"
import { hostile, hostileShown } from "../../support/hostile-text.ts"

const request = (agent?: ApprovalRequest["agent"]): ApprovalRequest => ({
  toolName: "write",
  arguments: { path: "notes.md", content: "hi\n" },
  classification: { risk: "medium", authority: "write", scope: "workspace", summary: "write notes.md", paths: [], grantKey: "write:notes.md" },
  mode: "default",
  ...(agent === undefined ? {} : { agent })
})

const path2 = [
  { callId: "c1", index: 2, name: "explore" },
  { callId: "c7", index: 1, name: "general" }
]

/** Opens the approval dialog; once the choices are drawn, presses Enter (Allow once). */
const approveOnScreen = async (asked: ApprovalRequest) => {
  const input = new PassThrough()
  const output = new PassThrough()
  let screen = ""
  output.on("data", (chunk: Buffer) => {
    screen += chunk.toString()
  })
  const committed: Array<string> = []
  const host = { takeOver: () => {}, giveBack: () => {}, commit: (lines: ReadonlyArray<string>) => void committed.push(...lines), columns: () => 100, output, input, interruptTurn: () => {} }
  const answer = Effect.runPromise(makeDialogs(host, plainPalette).approve(asked))
  const deadline = Date.now() + 5_000
  while (!/Allow once/.test(screen)) {
    if (Date.now() > deadline) throw new Error(`no choices on the screen:\n${screen}`)
    await new Promise((resolve) => setTimeout(resolve, 10))
  }
  input.write("\r")
  return { answer: await answer, committed, screen }
}

describe("the approval dialog for a subagent", () => {
  it("names the agent path under the call and in the question", async () => {
    const { answer, committed, screen } = await approveOnScreen(request(path2))
    expect(answer).toEqual({ _tag: "AllowOnce" })
    expect(committed.slice(0, 3)).toEqual([
      "? Allow write: write notes.md",
      "  asked by subagent task 2 › explore › task 1 › general",
      "  risk medium · write · workspace · approval mode default"
    ])
    expect(screen).toContain("Allow write for task 2 › explore › task 1 › general?")
  })

  it("the root session's own ask (no path, or an empty one) looks as before", async () => {
    for (const agent of [undefined, []]) {
      const lines = approvalLines(request(agent), plainPalette, 100)
      expect(lines.slice(0, 2)).toEqual(["? Allow write: write notes.md", "  risk medium · write · workspace · approval mode default"])
      expect(lines.join("\n")).not.toContain("subagent")
    }
    const { screen } = await approveOnScreen(request([]))
    expect(screen).toContain("Allow write?")
  })

  it("an agent name that holds control characters is drawn inert, on one line", () => {
    const lines = approvalLines(request([{ callId: "c1", index: 1, name: `x${hostile}\ny` }]), plainPalette, 100)
    expect(lines[1]).toBe(`  asked by subagent task 1 › x${hostileShown} y`)
  })

  it("headless, a child's ask is refused like the root's: nobody to answer", async () => {
    expect(await Effect.runPromise(headlessOperator.approve(request(path2)))).toEqual({ _tag: "NoOperator" })
  })
})
