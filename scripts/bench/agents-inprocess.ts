/// <reference types="bun" />
/**
 * What starting a child costs, inside one process (no process start, no other run's noise): a
 * real session (layers/session.ts) against the fake model in this process. From the moment the
 * `task` call starts to the child's first model request, against the moment a `todoread` call
 * starts to the parent's next request, alternating turns of the same session (target: ≤ 5 ms more).
 * Usage: bun scripts/bench/agents-inprocess.ts [--runs N]
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { headlessOperator } from "../../layers/headless.ts"
import { startSession } from "../../layers/session.ts"
import type { RendererShape } from "../../src/engine/renderer.ts"
import { runTurn } from "../../src/engine/turn.ts"
import { scriptByAgent, systemTextOf } from "../../test/support/fake-llm/by-agent.ts"
import { startFakeLlm } from "../../test/support/fake-llm/server.ts"
import { preparedSession } from "../../test/support/prepared.ts"
import { flag, median, ms } from "./measure.ts"

const runs = flag("--runs", 30)
const fake = await startFakeLlm()
const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-agents-")))
fs.mkdirSync(path.join(root, ".crystal", "agents"), { recursive: true })
fs.writeFileSync(path.join(root, ".crystal", "agents", "bench.md"), "---\nname: bench\ndescription: bench agent\n---\nMARK-bench: a bench agent.\n")
const prepared = preparedSession(root, { providers: { local: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, models: { m: { contextWindow: 1_000_000 } } } } }, "local/m")

const started = new Map<string, number>()
const quiet = () => Effect.void
const renderer: RendererShape = {
  sessionStarted: quiet, textDelta: quiet, reasoningDelta: quiet, assistantMessage: quiet, approval: quiet, toolProgress: quiet,
  toolFinished: quiet, retrying: quiet, note: quiet, finished: quiet, failed: quiet,
  toolStarted: (call) => Effect.sync(() => void started.set(call.id, performance.timeOrigin + performance.now()))
}

const gaps = { tool: [] as Array<number>, child: [] as Array<number> }
await Effect.runPromise(
  Effect.scoped(
    Effect.gen(function* () {
      const session = yield* startSession(prepared, { env: {}, renderer, operator: headlessOperator })
      for (let i = 0; i < runs + 3; i++) {
        let from = fake.requests.length
        fake.script([{ toolCalls: [{ id: `call_todo${i}`, name: "todoread", arguments: {} }] }, { text: "done" }])
        yield* runTurn("todo", { maxSteps: 5 }).pipe(Effect.provide(session.services))
        const toolGap = (fake.requests[from + 1]?.receivedAt ?? 0) - (started.get(`call_todo${i}`) ?? 0)
        from = fake.requests.length
        scriptByAgent(fake, {
          root: [{ toolCalls: [{ id: `call_task${i}`, name: "task", arguments: { description: "bench", prompt: "answer", agent: "bench" } }] }, { text: "done" }],
          agents: { "MARK-bench": [{ text: "child answer" }] }
        })
        yield* runTurn("task", { maxSteps: 5 }).pipe(Effect.provide(session.services))
        const childFirst = fake.requests.slice(from).find((request) => systemTextOf(request).includes("MARK-bench"))
        const childGap = (childFirst?.receivedAt ?? 0) - (started.get(`call_task${i}`) ?? 0)
        if (i >= 3) {
          gaps.tool.push(toolGap)
          gaps.child.push(childGap)
        }
      }
    })
  )
)
console.log(`in one process, median of ${runs} alternating turns`)
console.log(`  todoread call starts → the parent's next request   ${ms(median(gaps.tool))}`)
console.log(`  task call starts → the child's first request       ${ms(median(gaps.child))}`)
console.log(`  → a child costs ${ms(median(gaps.child) - median(gaps.tool))} more to start (target ≤ 5 ms)`)
await fake.close()
