/**
 * The session's MCP servers as layers/session.ts starts them, with a fake LLM driving real turns:
 * a `${env:…}` credential in a server's env is redacted from what the server echoes back, before
 * it reaches the session file or the next model request.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { headlessOperator } from "../../../layers/headless.ts"
import { startSession } from "../../../layers/session.ts"
import type { Config } from "../../../src/config/schema.ts"
import { runTurn } from "../../../src/engine/turn.ts"
import { installSecrets } from "../../../src/session/redact.ts"
import { startFakeLlm, type FakeLlm } from "../../support/fake-llm/server.ts"
import { everythingServer } from "../../support/mcp/servers.ts"
import { preparedSession } from "../../support/prepared.ts"
import { silentRenderer } from "../../support/renderer.ts"
import { tempDir } from "../../support/temp.ts"

const servers: Array<FakeLlm> = []
afterEach(async () => {
  installSecrets([])
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

describe("MCP servers in a session", () => {
  it("a ${env:…} value given to a server's env is redacted from its tool output: not in the session file, not in the next request", async () => {
    const token = "mcp-tok-7d41c2b9e0a35f68"
    const fake = await startFakeLlm()
    servers.push(fake)
    const root = await tempDir()
    const config: Config = {
      providers: { local: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, models: { m: {} } } },
      mcpServers: { everything: { command: process.execPath, args: [everythingServer, "stdio"], env: { TRACKER_TOKEN: "${env:CRYSTAL_TEST_TRACKER_TOKEN}" } } }
    }
    const prepared = preparedSession(root, config, "local/m")
    const full = { ...prepared, document: { ...prepared.document, approval: "full" as const } }
    fake.script([{ toolCalls: [{ name: "mcp__everything__get-env", arguments: {} }] }, { text: "Printed." }])
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const session = yield* startSession(full, { env: { CRYSTAL_TEST_TRACKER_TOKEN: token }, renderer: silentRenderer(), operator: headlessOperator })
          yield* runTurn("print the server's environment", { maxSteps: 5 }).pipe(Effect.provide(session.services))
        })
      )
    )
    const second = fake.requests.filter((request) => request.path === "/v1/chat/completions")[1]
    expect(second?.rawBody).toContain('\\"TRACKER_TOKEN\\": \\"[redacted]\\"')
    expect(second?.rawBody).not.toContain(token)
    const files = (await fs.readdir(prepared.store.dir)).filter((file) => file.endsWith(".json"))
    const saved = (await Promise.all(files.map((file) => fs.readFile(path.join(prepared.store.dir, file), "utf8")))).join("\n")
    expect(saved).toContain("TRACKER_TOKEN")
    expect(saved).not.toContain(token)
  })
})
