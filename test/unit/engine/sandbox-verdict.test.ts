/**
 * Which approved calls run in the OS sandbox: reads the policy let through unasked, and every call
 * under plan approval — never what a person (or a session grant, or the reviewer) approved.
 * Then the same through the executor and the real bash tool, classifier and sandbox.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { classifyBash } from "../../../src/approval/bash/classify.ts"
import type { Classification } from "../../../src/approval/classification.ts"
import type { ApprovalMode } from "../../../src/approval/policy.ts"
import { makeBackgroundBash } from "../../../src/bash/background.ts"
import { sandboxStatus } from "../../../src/bash/sandbox.ts"
import { authorize } from "../../../src/engine/authorize.ts"
import { executeToolCall } from "../../../src/engine/executor.ts"
import type { ApprovalAnswer } from "../../../src/engine/operator.ts"
import { makeBashTools } from "../../../src/tools/bash-tools.ts"
import type { Tool } from "../../../src/tools/tool.ts"
import { engineLayer } from "../../support/engine-layer.ts"
import { silentRenderer } from "../../support/renderer.ts"
import { tempDir } from "../../support/temp.ts"

const services = (tools: ReadonlyArray<Tool>, workspace: string, answer: ApprovalAnswer) =>
  engineLayer({
    workspace,
    tools,
    renderer: silentRenderer(),
    operator: { confirm: () => Effect.succeed(false), askQuestions: () => Effect.succeed({ _tag: "NoOperator" }), approve: () => Effect.succeed(answer) }
  })

const read: Classification = { risk: "low", authority: "read", scope: "workspace", summary: "run `cat a`", paths: [], grantKey: "bash:cat" }
const execute: Classification = { ...read, risk: "medium", authority: "execute", summary: "run `make`", grantKey: "bash:make" }

describe("the sandbox field of the verdict", () => {
  const cases: ReadonlyArray<readonly [string, Classification, ApprovalMode, ApprovalAnswer, "read-only" | undefined]> = [
    ["a read the policy allows", read, "default", { _tag: "NoOperator" }, "read-only"],
    ["a read under full approval", read, "full", { _tag: "NoOperator" }, "read-only"],
    ["a read under plan approval", read, "plan", { _tag: "NoOperator" }, "read-only"],
    ["an execute call full approval lets run", execute, "full", { _tag: "NoOperator" }, undefined],
    ["an execute call the operator allowed", execute, "default", { _tag: "AllowOnce" }, undefined],
    ["a read the operator allowed under audit", read, "audit", { _tag: "AllowOnce" }, undefined]
  ]
  for (const [name, classification, approval, answer, expected] of cases) {
    it(`${name}: ${expected ?? "not sandboxed"}`, async () => {
      const workspace = await tempDir()
      const verdict = await Effect.runPromise(
        authorize({ id: "c", name: "bash", arguments: {} }, classification, { mode: "work", approval, writesThroughFence: false }).pipe(
          Effect.provide(services([], workspace, answer))
        )
      )
      expect(verdict).toMatchObject({ _tag: "Run", sandbox: expected })
    })
  }
})

const status = sandboxStatus()
const usable = status.available && status.kind === "bwrap"
const skipped = usable ? "" : ` (skipped: ${status.available ? `${status.kind} cannot be tested on this platform` : status.reason})`

describe.skipIf(!usable)(`the executor runs the bash tool in the sandbox when the verdict says so${skipped}`, () => {
  const probe = "cat a.txt; [ -w a.txt ] && echo writable || echo read-only"
  const scenarios: ReadonlyArray<readonly [string, string, ApprovalMode, ApprovalAnswer, string]> = [
    ["a read under default approval", probe, "default", { _tag: "NoOperator" }, "exit 0\nalpha\nread-only"],
    ["a read under plan approval", probe, "plan", { _tag: "NoOperator" }, "exit 0\nalpha\nread-only"],
    ["a read the operator approved under audit", probe, "audit", { _tag: "AllowOnce" }, "exit 0\nalpha\nwritable"],
    ["a write under full approval", `touch b.txt; ${probe}`, "full", { _tag: "NoOperator" }, "exit 0\nalpha\nwritable"]
  ]
  for (const [name, command, approval, answer, expected] of scenarios) {
    it(name, async () => {
      const workspace = await tempDir()
      fs.writeFileSync(path.join(workspace, "a.txt"), "alpha\n")
      const text = await Effect.runPromise(
        Effect.scoped(
          Effect.gen(function* () {
            const background = yield* makeBackgroundBash({ timeoutSeconds: null })
            const tools = makeBashTools({ background, bashTimeoutSeconds: 30, classifyCommand: (cmd, context) => classifyBash(cmd, context.fence) })
            const output = yield* executeToolCall({ id: "c", name: "bash", arguments: { command } }, { mode: "work", approval }).pipe(
              Effect.provide(services([tools.bash], workspace, answer))
            )
            return output.text
          })
        )
      )
      expect(text).toBe(expected)
    })
  }
})
