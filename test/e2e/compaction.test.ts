/**
 * Compaction through the compiled binary: `crystal run --continue` on a session near the model's
 * context limit compacts before its request, says so in the JSON events, and keeps the full
 * history in the session file; a broken compaction setting refuses to start.
 */
import { afterEach, describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, readSession, runCrystal, sessionFiles, writeLocalConfig } from "../support/crystal.ts"
import { startFakeLlm, type FakeLlm } from "../support/fake-llm/server.ts"

const servers: Array<FakeLlm> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

interface ChatBody {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content?: unknown }>
  readonly tools?: ReadonlyArray<unknown>
}

describe("compaction in crystal run", () => {
  it("compacts a continued session over the threshold and answers from the summary", async () => {
    const sandbox = await makeSandbox()
    const fake = await startFakeLlm()
    servers.push(fake)
    await writeLocalConfig(sandbox, fake.url, { compaction: { keepRecentTokens: 0 } })
    // 30,000 of 32,768 tokens is over the default 85%.
    fake.script([
      { text: "first answer", usage: { inputTokens: 30_000, outputTokens: 100 } },
      { text: "SUMMARY: the operator asked a first question." },
      { text: "second answer", usage: { inputTokens: 3_000, outputTokens: 10 } }
    ])
    const first = await runCrystal(sandbox, ["run", "--format", "json", "first question"])
    expect(first.code).toBe(0)
    const second = await runCrystal(sandbox, ["run", "--continue", "--format", "json", "second question"])
    expect(second.stderr).toBe("")
    expect(second.code).toBe(0)
    const events = jsonLines(second.stdout)
    expect(events.map((event) => event["type"])).toEqual(["session", "note", "text", "done"])
    expect(String(events[1]?.["text"])).toMatch(/^Compacted the conversation \(it was nearing the model's context limit\): 2 earlier messages summarised, 1 kept verbatim/)
    expect(fake.requests).toHaveLength(3)
    const summaryBody = fake.requests[1]?.body as ChatBody
    expect(summaryBody.tools ?? []).toEqual([])
    expect(JSON.stringify(summaryBody.messages)).toContain("[user] first question")
    const after = fake.requests[2]?.body as ChatBody
    expect(after.messages.map((message) => message.role)).toEqual(["system", "user", "user"])
    expect(String(after.messages[1]?.content)).toContain("SUMMARY: the operator asked a first question.")
    expect(after.messages[2]?.content).toBe("second question")
    const [file] = await sessionFiles(sandbox)
    const saved = await readSession(file ?? "")
    expect(saved.items.map((item) => item["_tag"])).toEqual(["user", "assistant", "user", "compaction", "assistant"])
  })

  it("refuses to start with a broken compaction setting", async () => {
    const sandbox = await makeSandbox()
    const fake = await startFakeLlm()
    servers.push(fake)
    await writeLocalConfig(sandbox, fake.url, { compaction: { threshold: 85 } })
    const result = await runCrystal(sandbox, ["run", "hello"])
    expect(result.code).toBe(2)
    expect(result.stderr).toContain("compaction.threshold: a share of the context window above 0 and at most 1 (e.g. 0.85)")
    expect(fake.requests).toHaveLength(0)
  })
})
