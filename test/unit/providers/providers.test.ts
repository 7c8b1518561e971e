/** The Providers service through its layers: switching resolves with the session's config and the host's environment. */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import type { Config } from "../../../src/config/schema.ts"
import { resolveModel } from "../../../src/providers/catalog.ts"
import { makeOpenAIChatClient } from "../../../src/providers/openai-chat.ts"
import { Providers } from "../../../src/providers/providers.ts"

const config: Config = {
  providers: {
    a: { protocol: "openai-chat", baseURL: "http://127.0.0.1:9/v1", models: { m: {} } },
    b: { protocol: "openai-chat", baseURL: "http://127.0.0.1:9/v1", apiKeyEnv: "B_KEY", models: { n: {} } }
  }
}
const entry = (ref: string) => Effect.runSync(resolveModel({ requested: { ref, source: "test" }, config, configFile: "config.json", env: { B_KEY: "k" } }))

const switchWith = (env: Record<string, string>, ref: string) =>
  Effect.runPromise(
    Effect.gen(function* () {
      const providers = yield* Providers
      const switched = yield* Effect.either(providers.switchTo(ref, "/model"))
      return { switched: Either.map(switched, (model) => model.ref), current: providers.current().entry.ref }
    }).pipe(Effect.provide(Providers.layer({ config, configFile: "config.json", env, initial: entry("a/m") })))
  )

describe("Providers", () => {
  it("switches to a configured model when its key is in the host's environment", async () => {
    expect(await switchWith({ B_KEY: "k" }, "b/n")).toEqual({ switched: Either.right("b/n"), current: "b/n" })
  })

  it("refuses a model whose key the host's environment lacks, and keeps the current one", async () => {
    const { switched, current } = await switchWith({}, "b/n")
    expect(Either.isLeft(switched) && switched.left.message).toBe("provider 'b' needs an API key: set B_KEY in the environment")
    expect(current).toBe("a/m")
  })

  it("refuses an unknown model, naming where the reference came from", async () => {
    const { switched, current } = await switchWith({}, "nope/x")
    expect(Either.isLeft(switched) && switched.left.message).toMatch(/^\/model: /)
    expect(current).toBe("a/m")
  })

  it("the test layer switches among the clients it was given", async () => {
    const a = entry("a/m")
    const b = entry("b/n")
    const refs = await Effect.runPromise(
      Effect.gen(function* () {
        const providers = yield* Providers
        const before = providers.current().entry.ref
        yield* providers.switchTo("b/n", "test")
        const unknown = yield* Effect.either(providers.switchTo("c/x", "test"))
        return [before, providers.current().entry.ref, Either.isLeft(unknown)]
      }).pipe(
        Effect.provide(
          Providers.layerTest([
            { entry: a, client: makeOpenAIChatClient(a, {}) },
            { entry: b, client: makeOpenAIChatClient(b, {}) }
          ])
        )
      )
    )
    expect(refs).toEqual(["a/m", "b/n", true])
  })
})
