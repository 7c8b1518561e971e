/**
 * The summary request on its own, through the real Chat Completions adapter: the slots bound over
 * the host values, a replaced template without {{output_template}}, and each way of not getting a
 * summary (a timeout, a tool call, a provider error) coming out as a sentence.
 */
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { afterEach, describe, expect, it } from "vitest"
import { Providers } from "../../../src/providers/providers.ts"
import { makeCompactor, type SummaryInput } from "../../../src/engine/compactor.ts"
import { makeOpenAIChatClient } from "../../../src/providers/openai-chat.ts"
import { startFakeLlm, type FakeLlm } from "../../support/fake-llm/server.ts"
import { localModel } from "../../support/model-entry.ts"
import { pipelineOf, withHooks, withRawHooks } from "../../support/plugins.ts"

const servers: Array<FakeLlm> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

const input: SummaryInput = {
  summarized: [
    { _tag: "user", id: "u1", text: "rename {{model}} in parser.ts" },
    { _tag: "assistant", id: "a1", text: "Renamed.", model: "local/m" }
  ],
  priorSummary: "The parser was ported.",
  todos: [{ content: "rename", status: "completed", priority: "low" }],
  instructions: undefined
}

const setup = async (userTemplate: string, timeoutMs?: number) => {
  const fake = await startFakeLlm()
  servers.push(fake)
  const model = localModel(fake.url)
  const compactor = makeCompactor({
    settings: { auto: true, threshold: 0.85, keepRecentTokens: 100 },
    activeModel: Providers.fixed([{ entry: model, client: makeOpenAIChatClient(model, {}) }]),
    prompts: Effect.succeed({
      system: "COMPACTION SYSTEM",
      userTemplate,
      hostValues: new Map([["mode", "compaction"], ["conversation", "a host value that loses"]])
    }),
    timeoutMs
  })
  const summarize = () => Effect.runPromise(Effect.either(compactor.summarize(input)))
  return { fake, summarize }
}

const sentUser = (fake: FakeLlm): string =>
  String((fake.requests[0]?.body as { messages: Array<{ content: unknown }> }).messages[1]?.content)

describe("the summary request", () => {
  it("binds the five slots over the host values, once, leaving tokens inside values alone", async () => {
    const { fake, summarize } = await setup("[{{mode}}]\n{{prior_summary_section}}{{conversation}}\n{{todos_section}}{{summary_task}}\n{{output_template}}\n{{unknown}}")
    fake.script([{ text: "  the summary \n", usage: { inputTokens: 40, outputTokens: 4 } }])
    const result = await summarize()
    expect(Either.getOrThrow(result)).toMatchObject({ text: "the summary", usage: { inputTokens: 40, outputTokens: 4 } })
    const user = sentUser(fake)
    expect(user.startsWith("[compaction]\nThe summary of what came before (from an earlier compaction; fold it into yours):\nThe parser was ported.\n\n[user] rename {{model}} in parser.ts\n[assistant] Renamed.\n")).toBe(true)
    expect(user).toContain("1. [completed] (low) rename\n\nSummarise the conversation above")
    expect(user).toContain("## Next steps")
    expect(user.endsWith("{{unknown}}")).toBe(true)
    expect(user).not.toContain("a host value that loses")
  })

  it("works with a replaced template that leaves the output format out", async () => {
    const { fake, summarize } = await setup("Summarise tersely:\n{{conversation}}")
    fake.script([{ text: "terse" }])
    expect(Either.getOrThrow(await summarize()).text).toBe("terse")
    expect(sentUser(fake)).toBe("Summarise tersely:\n[user] rename {{model}} in parser.ts\n[assistant] Renamed.")
  })

  it("fails with a sentence on a timeout, a tool call, or a provider error", async () => {
    const slow = await setup("{{conversation}}", 200)
    slow.fake.script([{ delayMs: 3_000, text: "too late" }])
    expect(Either.mapLeft(await slow.summarize(), (error) => [error._tag, error.message])).toEqual(Either.left(["CompactionFailed", "the summary took longer than 0.2 s"]))

    const tool = await setup("{{conversation}}")
    tool.fake.script([{ toolCalls: [{ name: "read", arguments: { path: "x" } }] }])
    expect(Either.mapLeft(await tool.summarize(), (error) => error.message)).toEqual(Either.left("the model called read instead of writing a summary"))

    const broken = await setup("{{conversation}}")
    broken.fake.script([{ kind: "error", status: 400, message: "bad request, really" }])
    const failed = await broken.summarize()
    expect(Either.isLeft(failed) && failed.left.message).toMatch(/^the summary request failed: .*bad request, really/)
  })
})

describe("the summary request with plugins", () => {
  it("onCompaction appends to the prompt and the summary, rewriteCompaction replaces them, and transformModel sees a compaction call", async () => {
    const fake = await startFakeLlm()
    servers.push(fake)
    const model = localModel(fake.url)
    const purposes: Array<string> = []
    const { pipeline, notes } = pipelineOf([
      withHooks("facts", {
        onCompaction: (c) => (c.summary === undefined ? { appendToPrompt: "Keep ticket ids." } : { appendToSummary: "Ticket: T-7" }),
        transformModel: (r) => void purposes.push(r.purpose)
      }),
      withHooks("greedy", { onCompaction: () => ({ keepOnly: "u1" }) as never }),
      withRawHooks("raw", { rewriteCompaction: ({ kind, text }) => (kind === "summary" ? `${text}\n(rewritten)` : undefined) })
    ])
    const compactor = makeCompactor({
      settings: { auto: true, threshold: 0.85, keepRecentTokens: 100 },
      activeModel: Providers.fixed([{ entry: model, client: makeOpenAIChatClient(model, {}) }]),
      prompts: Effect.succeed({ system: "COMPACTION SYSTEM", userTemplate: "Summarise {{conversation}}" }),
      hooks: pipeline
    })
    fake.script([{ text: "the summary" }])
    const summary = await Effect.runPromise(compactor.summarize(input))
    expect(sentUser(fake).endsWith("\n\nKeep ticket ids.")).toBe(true)
    expect(summary.text).toBe("the summary\n\nTicket: T-7\n(rewritten)")
    expect(purposes).toEqual(["compaction"])
    expect(notes.filter((note) => note.startsWith("Plugin 'greedy'"))).toHaveLength(2)
  })
})
