/**
 * Switching models inside a session: the next request goes to the new adapter with the same
 * transcript, and the old provider's opaque reasoning state is not sent to the new one.
 */
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { headlessOperator } from "../../../layers/headless.ts"
import { startSession } from "../../../layers/session.ts"
import type { Config } from "../../../src/config/schema.ts"
import { runTurn } from "../../../src/engine/turn.ts"
import { jsonRenderer } from "../../../src/cli/render/json.ts"
import { startFakeLlm, type FakeLlm } from "../../support/fake-llm/server.ts"
import { preparedSession } from "../../support/prepared.ts"
import { tempDir } from "../../support/temp.ts"

const servers: Array<FakeLlm> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

describe("switching models between turns", () => {
  it("sends the transcript to the new provider without the old provider's reasoning state", async () => {
    const fake = await startFakeLlm()
    servers.push(fake)
    const root = await tempDir()
    const config: Config = {
      providers: {
        oa: { protocol: "openai-responses", baseURL: `${fake.url}/v1`, models: { thinker: { reasoning: true } } },
        an: { protocol: "anthropic", baseURL: fake.url, models: { claude: { reasoning: true } } }
      }
    }
    const prepared = preparedSession(root, config, "oa/thinker")
    const { store } = prepared
    fake.script([{ reasoning: "Thinking in OpenAI's way.", text: "First." }, { text: "Second." }])
    const quiet = { ...jsonRenderer, textDelta: () => Effect.void, assistantMessage: () => Effect.void }
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const session = yield* startSession(prepared, { env: {}, renderer: { ...quiet, sessionStarted: () => Effect.void }, operator: headlessOperator })
          yield* runTurn("one", { maxSteps: 5 }).pipe(Effect.provide(session.services))
          const switched = yield* session.controls.switchModel("an/claude").pipe(Effect.provide(session.services))
          expect(switched.ref).toBe("an/claude")
          yield* runTurn("two", { maxSteps: 5 }).pipe(Effect.provide(session.services))
        })
      )
    )
    expect(fake.requests.map((request) => request.protocol)).toEqual(["openai-responses", "anthropic"])
    const second = JSON.stringify(fake.requests[1]?.body)
    expect(second).toContain("First.")
    expect(second).toContain('"one"')
    expect(second).not.toContain("gAAAA")
    expect(second).not.toContain("Thinking in OpenAI's way.")
    const saved = await Effect.runPromise(store.load(prepared.document.id))
    expect(saved.model).toBe("an/claude")
    expect(saved.system).toContain("Model: an/claude")
  })
})
