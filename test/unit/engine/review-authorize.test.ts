/**
 * The review approval mode end to end inside one process: a turn against the fake LLM server in
 * which the same server answers the model's requests and the reviewer's side requests; real
 * built-in tools on a temp workspace; a scripted operator.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { afterEach, describe, expect, it } from "vitest"
import { Providers } from "../../../src/providers/providers.ts"
import { Conversation } from "../../../src/engine/conversation.ts"
import { Operator, type ApprovalAnswer, type ApprovalRequest } from "../../../src/engine/operator.ts"
import { Renderer, type RendererShape } from "../../../src/engine/renderer.ts"
import { makeReviewer } from "../../../src/engine/reviewer.ts"
import { ApprovalPolicy } from "../../../src/approval/approval-policy.ts"
import { MediaStore } from "../../../src/media/media-store.ts"
import { Toolbox } from "../../../src/engine/toolbox.ts"
import { Redactor } from "../../../src/secrets/redactor.ts"
import { runTurn } from "../../../src/engine/turn.ts"
import type { ModelEntry } from "../../../src/providers/catalog.ts"
import { makeOpenAIChatClient } from "../../../src/providers/openai-chat.ts"
import { makeSessionStore, SessionStore } from "../../../src/session/store.ts"
import { makeBuiltinTools } from "../../../src/tools/builtin.ts"
import { SearchIndexCache } from "../../../src/search/cache.ts"
import { startFakeLlm, type FakeLlm, type RecordedRequest } from "../../support/fake-llm/server.ts"
import { tempDir } from "../../support/temp.ts"
import { PluginLoader } from "../../../src/plugins/plugin-loader.ts"

const servers: Array<FakeLlm> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

/** Stands for the workspace instructions (AGENTS.md) inside the main system message. */
const instructionsMarker = "WORKSPACE-INSTRUCTIONS-MARKER-7f3a"
const reviewSystem = "REVIEW-SYSTEM: judge the call; answer with the JSON verdict."
const reviewTemplate = "{{conversation}}\n---\n{{tool_name}} {{tool_arguments}} ({{host_risk}}/{{host_authority}}: {{classification_summary}})"

const recordingRenderer = (log: Array<string>): RendererShape => ({
  sessionStarted: () => Effect.void,
  textDelta: () => Effect.void,
  reasoningDelta: () => Effect.void,
  assistantMessage: () => Effect.void,
  toolStarted: (call) => Effect.sync(() => log.push(`call:${call.name}`)),
  approval: (event) => Effect.sync(() => log.push(`approval:${event.outcome}:${event.by}`)),
  toolProgress: () => Effect.void,
  toolFinished: (result) => Effect.sync(() => log.push(`result:${result.isError ? "error" : "ok"}:${result.text}`)),
  retrying: () => Effect.void,
  note: (text) => Effect.sync(() => log.push(`note:${text}`)),
  finished: () => Effect.void,
  failed: (message) => Effect.sync(() => log.push(`failed:${message}`))
})

const verdict = (risk_level: string, user_authorization: string, reason: string) => ({ text: JSON.stringify({ risk_level, user_authorization, reason }) })

const setup = async (options: { readonly answers?: ReadonlyArray<ApprovalAnswer>; readonly withReviewer?: boolean } = {}) => {
  const fake = await startFakeLlm()
  servers.push(fake)
  const root = await tempDir()
  const workspace = path.join(root, "ws")
  await fs.mkdir(workspace)
  await fs.writeFile(path.join(workspace, "inside.txt"), "inside\n")
  const store = makeSessionStore(path.join(root, "sessions"))
  const document = {
    ...store.create({ workspace, model: "local/m", mode: "work", approval: "review" }),
    system: `You are a test.\n\n# Workspace instructions\n${instructionsMarker}`
  }
  const model: ModelEntry = {
    ref: "local/m",
    id: "m",
    provider: { name: "local", protocol: "openai-chat", baseURL: `${fake.url}/v1`, apiKeyEnv: [], headers: {} },
    capabilities: { contextWindow: 32768, maxOutputTokens: 1024, imageInput: false, reasoning: false },
    listed: true
  }
  const log: Array<string> = []
  const asked: Array<ApprovalRequest> = []
  const queue = [...(options.answers ?? [])]
  const activeModel = Providers.fixed([{ entry: model, client: makeOpenAIChatClient(model, {}) }])
  const storeLayer = Layer.succeed(SessionStore, store)
  const base = Layer.mergeAll(
    Layer.succeed(Providers, activeModel),
    Layer.succeed(Renderer, recordingRenderer(log)),
    Layer.succeed(Operator, {
      confirm: () => Effect.succeed(false),
      approve: (request) =>
        Effect.sync(() => {
          asked.push(request)
          return queue.shift() ?? { _tag: "NoOperator" as const }
        }),
      askQuestions: () => Effect.succeed({ _tag: "NoOperator" as const })
    }),
    storeLayer,
    MediaStore.layerTest(),
    PluginLoader.layerTest(),
    Layer.scoped(Conversation, Conversation.make(document)).pipe(Layer.provide(storeLayer))
  )
  const reviewer = options.withReviewer === false ? undefined : makeReviewer({ activeModel, prompts: Effect.succeed({ system: reviewSystem, userTemplate: reviewTemplate }) })
  const layer = Layer.merge(base, Toolbox.layerTest(makeBuiltinTools(new SearchIndexCache()), document.id).pipe(Layer.provideMerge(Layer.merge(ApprovalPolicy.layerTest(workspace, reviewer), Redactor.layerTest()))))
  const turn = (text: string) => Effect.runPromise(runTurn(text, { maxSteps: 5 }).pipe(Effect.provide(layer)))
  const saved = () => Effect.runPromise(store.load(document.id))
  const notes = path.join(workspace, "notes.txt")
  return { fake, log, asked, turn, saved, workspace, notes }
}

const writeNotes = { toolCalls: [{ id: "w1", name: "write", arguments: { path: "notes.txt", content: "hello\n" } }] }

const messages = (request: RecordedRequest | undefined) =>
  (request?.body as { messages: ReadonlyArray<{ role: string; content: unknown }> }).messages

describe("the review approval mode", () => {
  it("runs a call the reviewer allows, through a side request that is not in the transcript", async () => {
    const { fake, log, turn, saved, notes } = await setup()
    fake.script([writeNotes, verdict("low", "high", "The operator asked for notes.txt."), { text: "Written." }])
    await turn("Write hello into notes.txt")
    expect(await fs.readFile(notes, "utf8")).toBe("hello\n")
    expect(log).toEqual(["call:write", "approval:allowed:reviewer", "result:ok:created notes.txt (1 line)"])

    expect(fake.requests).toHaveLength(3)
    const review = fake.requests[1]
    expect(review?.rawBody).not.toContain(instructionsMarker)
    expect((review?.body as { tools?: unknown }).tools).toBeUndefined()
    expect(messages(review)).toEqual([
      { role: "system", content: reviewSystem },
      {
        role: "user",
        content:
          "[user] Write hello into notes.txt\n" +
          '[assistant calls write] {"path":"notes.txt","content":"hello\\n"}\n---\n' +
          'write {"path":"notes.txt","content":"hello\\n"} (medium/write: write notes.txt)'
      }
    ])
    // The main conversation went on without the review in it.
    expect(fake.requests[0]?.rawBody).toContain(instructionsMarker)
    expect(messages(fake.requests[2]).map((message) => message.role)).toEqual(["system", "user", "assistant", "tool"])
    const doc = await saved()
    expect(doc.items.map((item) => item._tag)).toEqual(["user", "assistant", "tool_result", "assistant"])
    expect(JSON.stringify(doc)).not.toContain("REVIEW-SYSTEM")
  })

  it("refuses a call the reviewer denies, telling the model the reviewer's reason", async () => {
    const { fake, log, asked, turn, notes } = await setup()
    fake.script([writeNotes, verdict("medium", "low", "The operator only asked a question."), { text: "OK." }])
    await turn("What is in inside.txt?")
    await expect(fs.access(notes)).rejects.toThrow()
    expect(asked).toEqual([])
    expect(log).toEqual([
      "call:write",
      "approval:denied:reviewer",
      "result:error:Denied by the reviewer: write notes.txt. Reason: The operator only asked a question. " +
        "Do not retry it unchanged; if the operator really wants this, they can ask for it explicitly."
    ])
    expect(JSON.stringify(messages(fake.requests[2]))).toContain("The operator only asked a question.")
  })

  it("puts an undecided call to the operator, who can allow it", async () => {
    const { fake, log, asked, turn, notes } = await setup({ answers: [{ _tag: "AllowOnce" }] })
    fake.script([writeNotes, verdict("medium", "medium", "Plausible but not asked for."), { text: "Written." }])
    await turn("Tidy up the workspace")
    expect(asked).toHaveLength(1)
    expect(asked[0]).toMatchObject({ toolName: "write", mode: "review", classification: { summary: "write notes.txt" } })
    expect(await fs.readFile(notes, "utf8")).toBe("hello\n")
    expect(log).toEqual([
      "call:write",
      "note:The reviewer left write notes.txt to the operator: Plausible but not asked for.",
      "approval:allowed:operator",
      "result:ok:created notes.txt (1 line)"
    ])
  })

  it("refuses an undecided call when nobody can answer, with the reviewer's reason", async () => {
    const { fake, log, turn, notes } = await setup()
    fake.script([writeNotes, { text: "not json" }, { text: "still not json" }, { text: "OK." }])
    await turn("Tidy up the workspace")
    await expect(fs.access(notes)).rejects.toThrow()
    expect(log[2]).toBe("approval:denied:nobody to ask")
    expect(log[3]).toMatch(
      /^result:error:Denied: write notes\.txt needs the operator's approval in the review approval mode, and nobody can approve in this non-interactive run\. The reviewer left it to the operator: the reviewer answered twice without a usable verdict/
    )
  })

  it("does not ask the reviewer about reads inside the workspace", async () => {
    const { fake, log, turn } = await setup()
    fake.script([{ toolCalls: [{ id: "r1", name: "read", arguments: { path: "inside.txt" } }] }, { text: "It says inside." }])
    await turn("What is in inside.txt?")
    expect(fake.requests).toHaveLength(2)
    expect(log).toEqual(["call:read", "approval:allowed:policy", "result:ok:1\tinside"])
  })

  it("asks the operator, never allows, when the reviewer has no verdict", async () => {
    const { fake, log, asked, turn, notes } = await setup({ withReviewer: false, answers: [{ _tag: "Deny" }] })
    fake.script([writeNotes, { text: "OK." }])
    await turn("Write hello into notes.txt")
    expect(fake.requests).toHaveLength(2)
    expect(asked).toHaveLength(1)
    await expect(fs.access(notes)).rejects.toThrow()
    expect(log).toContain("note:The reviewer left write notes.txt to the operator: this test has no reviewer")
  })
})
