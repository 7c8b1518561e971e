/**
 * Compaction (SPEC S2) in a real session against the fake LLM server (Chat Completions): the
 * automatic trigger at the threshold, what the summary request carries, what the model sees
 * afterwards, a failed summary, and a context that stays too large without a second compaction.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { afterEach, describe, expect, it } from "vitest"
import { headlessOperator } from "../../../layers/headless.ts"
import { startSession, type Session, type SessionServices } from "../../../layers/session.ts"
import type { Config } from "../../../src/config/schema.ts"
import { Conversation } from "../../../src/engine/conversation.ts"
import type { RendererShape } from "../../../src/engine/renderer.ts"
import { runTurn } from "../../../src/engine/turn.ts"
import { startFakeLlm, type FakeLlm, type RecordedRequest } from "../../support/fake-llm/server.ts"
import { preparedSession } from "../../support/prepared.ts"
import { tempDir } from "../../support/temp.ts"
import { silentRenderer } from "../../support/renderer.ts"

const servers: Array<FakeLlm> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

const notesRenderer = (notes: Array<string>): RendererShape => silentRenderer({ note: (text) => Effect.sync(() => void notes.push(text)) })

interface WireMessage {
  readonly role: string
  readonly content?: unknown
  readonly tool_calls?: unknown
}

const messages = (request: RecordedRequest | undefined): ReadonlyArray<WireMessage> => (request?.body as { messages: Array<WireMessage> }).messages
const text = (message: WireMessage | undefined): string => (typeof message?.content === "string" ? message.content : JSON.stringify(message?.content ?? ""))
const tools = (request: RecordedRequest | undefined): ReadonlyArray<unknown> => (request?.body as { tools?: Array<unknown> }).tools ?? []

/** A session on a 10,000-token model whose compaction threshold and verbatim budget the test picks. */
const openSession = async (compaction: NonNullable<Config["compaction"]>, contextWindow = 10_000) => {
  const fake = await startFakeLlm()
  servers.push(fake)
  const root = await tempDir()
  const config: Config = {
    providers: { fake: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, models: { small: { contextWindow, maxOutputTokens: 1_000 } } } },
    compaction
  }
  const prepared = preparedSession(root, config, "fake/small")
  const notes: Array<string> = []
  const run = <A, E>(body: (session: Session) => Effect.Effect<A, E, SessionServices>) =>
    Effect.runPromiseExit(
      Effect.scoped(
        Effect.gen(function* () {
          const session = yield* startSession(prepared, { env: {}, renderer: notesRenderer(notes), operator: headlessOperator })
          return yield* body(session).pipe(Effect.provide(session.services))
        })
      )
    )
  return { fake, root, prepared, notes, run }
}

const turn = (text: string) => runTurn(text, { maxSteps: 10 })

const longQuestion = `first question: ${"q".repeat(2_000)}`
const longAnswer = `first answer: ${"a".repeat(1_000)}`

describe("automatic compaction", () => {
  it("summarises once the next request passes the threshold, and continues from the summary, the recent turns and the todos", async () => {
    const { fake, root, prepared, notes, run } = await openSession({ threshold: 0.5, keepRecentTokens: 100 })
    fake.script([
      // Turn 1: a todo list, a file written, an answer.
      {
        toolCalls: [
          {
            name: "todowrite",
            arguments: { todos: [{ content: "port the parser", status: "in_progress", priority: "high" }] }
          },
          { name: "write", arguments: { path: "notes.txt", content: "hello" } }
        ],
        usage: { inputTokens: 2_500, outputTokens: 50 }
      },
      { text: longAnswer, usage: { inputTokens: 2_700, outputTokens: 300 } },
      // Turn 2: still under 5,000 tokens before its request.
      { text: "second answer", usage: { inputTokens: 4_950, outputTokens: 100 } },
      // Turn 3: 5,050+ tokens before its request, over 50% of 10,000: the summary, then the answer.
      { text: "SUMMARY: the parser port is under way." },
      { text: "third answer", usage: { inputTokens: 900, outputTokens: 20 } }
    ])
    const exit = await run((session) =>
      Effect.gen(function* () {
        yield* session.controls.setApproval("edit")
        yield* turn(longQuestion)
        yield* turn("second question")
        yield* turn("third question")
      })
    )
    expect(Exit.isSuccess(exit)).toBe(true)
    expect(fs.readFileSync(path.join(root, "notes.txt"), "utf8")).toBe("hello")
    expect(fake.requests).toHaveLength(5)

    // The third request (turn 2) was not compacted: it carried the whole conversation.
    expect(JSON.stringify(messages(fake.requests[2]))).toContain(longQuestion)

    // The summary request: compaction.system, no tools, one user message with every slot filled.
    const summaryRequest = fake.requests[3]
    expect(tools(summaryRequest)).toEqual([])
    const [system, user, ...rest] = messages(summaryRequest)
    expect(rest).toEqual([])
    expect(system?.role).toBe("system")
    expect(text(system)).toContain("You summarise a coding session for Crystal")
    expect(user?.role).toBe("user")
    const prompt = text(user)
    expect(prompt).not.toMatch(/\{\{\w+\}\}/)
    expect(prompt).toContain("The conversation to summarise (oldest first):")
    expect(prompt).toContain("[user] first question: qqq")
    expect(prompt).toContain("[assistant calls write]")
    expect(prompt).toContain("[assistant] first answer: aaa")
    expect(prompt).toContain("The session's todo list")
    expect(prompt).toContain("[in_progress] (high) port the parser")
    expect(prompt).toContain("so that the work can continue from your summary alone")
    expect(prompt).toContain("## Current plan")
    expect(prompt).not.toContain("summary of what came before")
    // The recent turns are kept verbatim, so they are not in the summary request.
    expect(prompt).not.toContain("second question")
    expect(prompt).not.toContain("third question")

    // After compaction: the system text, the summary (with files and todos), then the recent turns verbatim.
    const after = messages(fake.requests[4])
    expect(after.map((message) => message.role)).toEqual(["system", "user", "user", "assistant", "user"])
    const summary = text(after[1])
    expect(summary).toContain("SUMMARY: the parser port is under way.")
    expect(summary).toContain("- notes.txt")
    expect(summary).toContain("[in_progress] (high) port the parser")
    expect(text(after[2])).toBe("second question")
    expect(text(after[3])).toBe("second answer")
    expect(text(after[4])).toBe("third question")
    expect(JSON.stringify(after)).not.toContain("qqqq")
    expect(tools(fake.requests[4]).length).toBeGreaterThan(0)
    expect(notes.some((note) => note.startsWith("Compacted the conversation (it was nearing the model's context limit)"))).toBe(true)

    // The session file keeps the whole history, plus the compaction record, and loads again.
    const saved = await Effect.runPromise(prepared.store.load(prepared.document.id))
    const tags = saved.items.map((item) => item._tag)
    expect(tags.filter((tag) => tag === "compaction")).toHaveLength(1)
    expect(JSON.stringify(saved.items)).toContain(longQuestion)
    const record = saved.items.find((item) => item._tag === "compaction")
    expect(record).toMatchObject({ trigger: "auto", filesTouched: ["notes.txt"], summary: "SUMMARY: the parser port is under way." })
    expect(record?._tag === "compaction" && record.tokensAfter < record.tokensBefore).toBe(true)
  })

  it("leaves the conversation unchanged and says so when the summary request fails", async () => {
    const { fake, prepared, notes, run } = await openSession({ threshold: 0.5, keepRecentTokens: 100 })
    fake.script([
      { text: longAnswer, usage: { inputTokens: 5_000, outputTokens: 300 } },
      { kind: "error", status: 400, message: "the summary was refused" },
      { text: "second answer", usage: { inputTokens: 5_400, outputTokens: 20 } }
    ])
    const exit = await run(() =>
      Effect.gen(function* () {
        yield* turn(longQuestion)
        yield* turn("second question")
      })
    )
    expect(Exit.isSuccess(exit)).toBe(true)
    expect(fake.requests).toHaveLength(3)
    expect(notes.find((note) => note.startsWith("Compaction failed"))).toMatch(/the summary was refused.*The conversation is unchanged\./)
    // The request after the failure is the full conversation, as without compaction.
    const after = messages(fake.requests[2])
    expect(after.map((message) => message.role)).toEqual(["system", "user", "assistant", "user"])
    expect(text(after[1])).toBe(longQuestion)
    const saved = await Effect.runPromise(prepared.store.load(prepared.document.id))
    expect(saved.items.some((item) => item._tag === "compaction")).toBe(false)
  })

  it("compacts at most once per turn and ends the turn with a clear error when even the compacted context is too long", async () => {
    // A 3,000-token window is smaller than the system text and the tool definitions alone.
    const { fake, prepared, run } = await openSession({ threshold: 0.85, keepRecentTokens: 100 }, 3_000)
    fake.script([{ text: "SUMMARY: a question was asked." }, { text: "never sent" }])
    const exit = await run(() => turn("a question"))
    expect(fake.requests).toHaveLength(1)
    expect(tools(fake.requests[0])).toEqual([])
    expect(Exit.isFailure(exit)).toBe(true)
    if (Exit.isFailure(exit)) {
      const message = JSON.stringify(exit.cause)
      expect(message).toContain("context_too_long")
      expect(message).toContain("Even compacted, the conversation needs about")
    }
    expect(fake.remainingReplies()).toBe(1)
    const saved = await Effect.runPromise(prepared.store.load(prepared.document.id))
    expect(saved.items.filter((item) => item._tag === "compaction")).toHaveLength(1)
  })

  it("does not compact twice in one turn; the next turn may, folding the earlier summary into the new one", async () => {
    const { fake, notes, run } = await openSession({ threshold: 0.5, keepRecentTokens: 100 })
    fake.script([
      { text: longAnswer, usage: { inputTokens: 5_000, outputTokens: 300 } },
      // Turn 2: compaction, then a tool step whose usage passes the threshold again (still inside the window).
      { text: "SUMMARY ONE" },
      { toolCalls: [{ name: "todoread", arguments: {} }], usage: { inputTokens: 6_000, outputTokens: 30 } },
      { text: "second answer", usage: { inputTokens: 6_100, outputTokens: 20 } },
      // Turn 3: over the threshold at its start: a new compaction.
      { text: "SUMMARY TWO" },
      { text: "third answer", usage: { inputTokens: 800, outputTokens: 20 } }
    ])
    const exit = await run(() =>
      Effect.gen(function* () {
        yield* turn(longQuestion)
        yield* turn("second question")
        yield* turn("third question")
      })
    )
    expect(Exit.isSuccess(exit)).toBe(true)
    expect(fake.requests).toHaveLength(6)
    const summaryRequests = fake.requests.filter((request) => tools(request).length === 0)
    expect(summaryRequests.map((request) => request.index)).toEqual([2, 5])
    expect(notes.filter((note) => note.startsWith("Compacted"))).toHaveLength(2)
    const second = text(messages(fake.requests[4])[1])
    expect(second).toContain("The summary of what came before (from an earlier compaction; fold it into yours):\nSUMMARY ONE")
    expect(second).not.toContain("qqqq")
    const last = messages(fake.requests[5])
    expect(text(last[1])).toContain("SUMMARY TWO")
    expect(JSON.stringify(last)).not.toContain("SUMMARY ONE")
    expect(text(last.at(-1))).toBe("third question")
  })

  it("does nothing when compaction.auto is false", async () => {
    const { fake, run } = await openSession({ auto: false, threshold: 0.1 })
    fake.script([{ text: "answer", usage: { inputTokens: 9_000, outputTokens: 10 } }, { text: "again" }])
    const exit = await run(() =>
      Effect.gen(function* () {
        yield* turn("one")
        yield* turn("two")
      })
    )
    expect(Exit.isSuccess(exit)).toBe(true)
    expect(fake.requests).toHaveLength(2)
    expect(messages(fake.requests[1]).map((message) => message.role)).toEqual(["system", "user", "assistant", "user"])
  })
})

describe("/compact and /side", () => {
  it("/compact INSTRUCTIONS summarises on request, and refuses when there is nothing to compact", async () => {
    const { fake, prepared, notes, run } = await openSession({ keepRecentTokens: 0 })
    fake.script([
      { text: "an answer", usage: { inputTokens: 10, outputTokens: 1 } },
      { text: "SUMMARY WITH DECISIONS", usage: { inputTokens: 70, outputTokens: 7 } }
    ])
    const exit = await run((session) =>
      Effect.gen(function* () {
        const empty = yield* session.controls.compact()
        expect(empty).toEqual({ _tag: "Refused", reason: "there is nothing to compact yet" })
        yield* turn("a question")
        const outcome = yield* session.controls.compact("  keep the decisions  ")
        expect(outcome._tag).toBe("Compacted")
        const again = yield* session.controls.compact()
        expect(again._tag).toBe("Refused")
      })
    )
    expect(Exit.isSuccess(exit)).toBe(true)
    expect(fake.requests).toHaveLength(2)
    expect(text(messages(fake.requests[1])[1])).toContain("The operator asks the summary to: keep the decisions")
    expect(notes.some((note) => note.startsWith("Compacted the conversation: 2 earlier messages summarised, 0 kept verbatim"))).toBe(true)
    const saved = await Effect.runPromise(prepared.store.load(prepared.document.id))
    expect(saved.items.find((item) => item._tag === "compaction")).toMatchObject({ trigger: "manual", instructions: "keep the decisions" })
    // The summary request counts in what the session cost.
    expect(saved.usage).toMatchObject({ inputTokens: 80, outputTokens: 8 })
  })

  it("uses a workspace's compaction.user.md, with {{mode}} compaction", async () => {
    const { fake, root, run } = await openSession({ keepRecentTokens: 0 })
    fs.mkdirSync(path.join(root, ".crystal", "prompts"), { recursive: true })
    fs.writeFileSync(path.join(root, ".crystal", "prompts", "compaction.user.md"), "CUSTOM {{mode}} in {{workspace}}:\n{{conversation}}")
    fake.script([{ text: "an answer" }, { text: "SUMMARY" }])
    const exit = await run((session) =>
      Effect.gen(function* () {
        yield* turn("a question")
        return yield* session.controls.compact()
      })
    )
    expect(Exit.isSuccess(exit) && exit.value._tag).toBe("Compacted")
    const [system, user] = messages(fake.requests[1])
    expect(text(system)).toBe("You summarise a coding session for Crystal so that work can continue from the summary alone. You write only the summary: no tool calls, no questions, nothing addressed to the operator.\n")
    expect(text(user)).toBe(`CUSTOM compaction in ${root}:\n[user] a question\n[assistant] an answer`)
  })

  it.each([
    ["a summary", "SUMMARY"],
    ["an empty summary (it was billed all the same)", "  "]
  ])("counts what %s cost in the session's usage, under the model that answered", async (_name, summary) => {
    const { fake, prepared, run } = await openSession({ keepRecentTokens: 0 })
    fake.script([{ text: "an answer", usage: { inputTokens: 10, outputTokens: 1 } }, { text: summary, usage: { inputTokens: 40, outputTokens: 4, cachedInputTokens: 8 } }])
    await run((session) => Effect.zipRight(turn("a question"), session.controls.compact()))
    const saved = await Effect.runPromise(prepared.store.load(prepared.document.id))
    expect(saved.usage).toEqual({ inputTokens: 50, outputTokens: 5, cachedInputTokens: 8, reasoningTokens: 0 })
    expect(saved.usageByModel).toEqual({ "fake/small": saved.usage })
  })

  it("/compact with an empty summary changes nothing and says so", async () => {
    const { fake, prepared, notes, run } = await openSession({ keepRecentTokens: 0 })
    fake.script([{ text: "an answer" }, { text: "  " }])
    const exit = await run((session) =>
      Effect.gen(function* () {
        yield* turn("a question")
        return yield* session.controls.compact()
      })
    )
    expect(exit).toEqual(Exit.succeed({ _tag: "Failed", reason: "the model returned an empty summary" }))
    expect(notes).toContain("Compaction failed: the model returned an empty summary. The conversation is unchanged.")
    const saved = await Effect.runPromise(prepared.store.load(prepared.document.id))
    expect(saved.items.map((item) => item._tag)).toEqual(["user", "assistant"])
  })

  it("/side QUESTION answers from the current context and keeps nothing but what it cost", async () => {
    const { fake, prepared, run } = await openSession({})
    fake.script([{ text: "an answer" }, { text: "the side answer", usage: { inputTokens: 50, outputTokens: 5 } }])
    const exit = await run((session) =>
      Effect.gen(function* () {
        yield* turn("a question")
        const before = yield* Effect.flatMap(Conversation, (conversation) => conversation.document)
        const answer = yield* session.controls.side("what did I ask?")
        const after = yield* Effect.flatMap(Conversation, (conversation) => conversation.document)
        expect({ ...after, usage: before.usage, usageByModel: before.usageByModel }).toEqual(before)
        // It cost money: the session's usage counts it, under the model that answered.
        expect(after.usage.inputTokens - before.usage.inputTokens).toBe(50)
        expect(after.usageByModel?.["fake/small"]?.outputTokens).toBe((before.usageByModel?.["fake/small"]?.outputTokens ?? 0) + 5)
        return answer
      })
    )
    expect(Exit.isSuccess(exit) && exit.value).toMatchObject({ text: "the side answer", model: "fake/small", usage: { inputTokens: 50, outputTokens: 5 } })
    const request = fake.requests[1]
    const sent = messages(request)
    expect(sent.map((message) => message.role)).toEqual(["system", "user", "assistant", "user"])
    expect(text(sent[1])).toBe("a question")
    expect(text(sent[3])).toMatch(/^\[Side question from the operator: answer it from the conversation so far, in plain text, without calling any tool\./)
    expect(text(sent[3])).toContain("what did I ask?")
    const saved = await Effect.runPromise(prepared.store.load(prepared.document.id))
    expect(saved.items.map((item) => item._tag)).toEqual(["user", "assistant"])
    expect(JSON.stringify(saved)).not.toContain("side answer")
  })

  it("/side refuses an empty question, and a tool call instead of an answer", async () => {
    const { fake, run } = await openSession({})
    fake.script([{ toolCalls: [{ name: "read", arguments: { path: "x" } }] }])
    const empty = await run((session) => session.controls.side("  "))
    expect(JSON.stringify(empty)).toContain("/side needs a question")
    const tool = await run((session) => session.controls.side("read x"))
    expect(JSON.stringify(tool)).toContain("the model tried to call read instead of answering")
  })
})
