/**
 * SPEC H4 in one process: onSessionStarted after plugins load and whenever another session becomes
 * active; onSessionEnded, with the workspace and session being left, on /clear, /fork, /resume,
 * before /cd and /space start the next one, and when the host closes. A real plugin in a temp home
 * writes each moment to a log.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { headlessOperator } from "../../../layers/headless.ts"
import { prepareSession } from "../../../layers/prepare.ts"
import { openSessionHost } from "../../../layers/session-host.ts"
import { defaultSessionFlags } from "../../../src/cli/flags.ts"
import { jsonRenderer } from "../../../src/cli/render/json.ts"
import { runTurn } from "../../../src/engine/turn.ts"
import { useFakeServers } from "../../support/fake-servers.ts"
import { tempDir, writeTree } from "../../support/temp.ts"

const fakeServer = useFakeServers()

const plugin = `import { appendFileSync } from "node:fs"
const log = new URL("./moments.log", import.meta.url)
const line = (what, s) => appendFileSync(log, what + " " + s.sessionId + " " + s.workspace + " " + s.approval + "\\n")
export default { hooks: { onSessionStarted: (s) => line("start", s), onSessionEnded: (s) => line("end", s) } }
`

describe("session moments", () => {
  it("start and end as sessions switch, each end carrying the session it leaves", async () => {
    const fake = await fakeServer()
    fake.script([{ text: "hi" }])
    const root = await fs.realpath(await tempDir())
    const home = path.join(root, "home")
    const [ws1, ws2, ws3] = [path.join(root, "ws1"), path.join(root, "ws2"), path.join(root, "ws3")]
    for (const dir of [ws1, ws2, ws3]) await fs.mkdir(dir, { recursive: true })
    await writeTree(home, {
      "config.json": JSON.stringify({ model: "local/m", providers: { local: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, models: { m: {} } } } }),
      "plugins/moments/plugin.json": '{ "entry": "index.mjs" }',
      "plugins/moments/index.mjs": plugin
    })
    const env = { CRYSTAL_HOME: home }
    const flags = { ...defaultSessionFlags, approval: "audit" as const }
    const quiet = { ...jsonRenderer, note: () => Effect.void, sessionStarted: () => Effect.void, textDelta: () => Effect.void, assistantMessage: () => Effect.void }
    const ids = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const prepared = yield* prepareSession(flags, ws1, env)
          const host = yield* openSessionHost(prepared, { flags, env, renderer: quiet, operator: headlessOperator })
          const first = prepared.document.id
          // An empty session is never written; one exchange makes the first resumable.
          yield* runTurn("hello", { maxSteps: 2 }).pipe(Effect.provide(host.current().session.services))
          const cleared = (yield* host.clear).prepared.document.id
          const forked = (yield* host.fork).prepared.document.id
          yield* host.resume(first)
          yield* host.changeWorkspace(ws2)
          const spaced = (yield* host.newSessionIn(ws3)).prepared.document.id
          return { first, cleared, forked, spaced }
        })
      )
    )
    const log = await fs.readFile(path.join(home, "plugins", "moments", "moments.log"), "utf8")
    expect(log.trimEnd().split("\n")).toEqual([
      `start ${ids.first} ${ws1} audit`,
      `end ${ids.first} ${ws1} audit`,
      `start ${ids.cleared} ${ws1} audit`,
      `end ${ids.cleared} ${ws1} audit`,
      `start ${ids.forked} ${ws1} audit`,
      `end ${ids.forked} ${ws1} audit`,
      `start ${ids.first} ${ws1} audit`,
      `end ${ids.first} ${ws1} audit`,
      `start ${ids.first} ${ws2} audit`,
      `end ${ids.first} ${ws2} audit`,
      `start ${ids.spaced} ${ws3} audit`,
      `end ${ids.spaced} ${ws3} audit`
    ])
  })
})
