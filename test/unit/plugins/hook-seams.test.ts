/**
 * The hooks at their places in a real turn (ARCHITECTURE "The turn, as data flows"): the Chat
 * Completions adapter against the fake LLM server, a real session store, real test tools, an
 * operator that records what it was asked.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { afterEach, describe, expect, it } from "vitest"
import { ApprovalPolicy } from "../../../src/approval/approval-policy.ts"
import { Conversation } from "../../../src/engine/conversation.ts"
import { Operator, type ApprovalAnswer, type ApprovalRequest } from "../../../src/engine/operator.ts"
import { Renderer } from "../../../src/engine/renderer.ts"
import { executeToolCall } from "../../../src/engine/executor.ts"
import { askSideQuestion } from "../../../src/engine/side-question.ts"
import { Toolbox } from "../../../src/engine/toolbox.ts"
import { Redactor } from "../../../src/secrets/redactor.ts"
import { runTurn } from "../../../src/engine/turn.ts"
import { MediaStore } from "../../../src/media/media-store.ts"
import type { LoadedPlugin } from "../../../src/plugins/loaded.ts"
import { PluginLoader } from "../../../src/plugins/plugin-loader.ts"
import { makeOpenAIChatClient } from "../../../src/providers/openai-chat.ts"
import { Providers } from "../../../src/providers/providers.ts"
import { makeSessionStore, SessionStore } from "../../../src/session/store.ts"
import * as p from "../../../src/tools/params.ts"
import { defineTool, everyMode, type Tool } from "../../../src/tools/tool.ts"
import type { FakeLlm } from "../../support/fake-llm/server.ts"
import { useFakeServers } from "../../support/fake-servers.ts"
import { withHooks, withRawHooks } from "../../support/plugins.ts"
import { silentRenderer } from "../../support/renderer.ts"
import { localModel } from "../../support/model-entry.ts"
import { tempDir } from "../../support/temp.ts"

const runs: Array<string> = []

const lookup = defineTool({
  name: "lookup",
  description: "A read.",
  parameters: p.object({ key: p.string() }),
  modes: everyMode,
  classify: ({ key }) => Effect.succeed({ risk: "low", authority: "read", scope: "workspace", summary: `look up ${key}`, paths: [] }),
  run: ({ key }) => Effect.sync(() => (runs.push(`lookup ${key}`), { text: `value of ${key}` }))
})

const change = defineTool({
  name: "change",
  description: "A write.",
  parameters: p.object({ key: p.string() }),
  modes: everyMode,
  classify: ({ key }) => Effect.succeed({ risk: "medium", authority: "write", scope: "workspace", summary: `change ${key}`, paths: [] }),
  run: ({ key }) => Effect.sync(() => (runs.push(`change ${key}`), { text: `changed ${key}` }))
})

const fakeServer = useFakeServers()
afterEach(() => {
  runs.length = 0
})

const setup = async (plugins: ReadonlyArray<LoadedPlugin>, answers: ReadonlyArray<ApprovalAnswer> = [], tools: ReadonlyArray<Tool> = [lookup, change]) => {
  const fake = await fakeServer()
  const home = await tempDir()
  const store = makeSessionStore(path.join(home, "sessions"))
  const document = { ...store.create({ workspace: home, model: "local/m", mode: "work", approval: "default" }), system: "You are a test." }
  const model = localModel(fake.url)
  const notes: Array<string> = []
  const asked: Array<ApprovalRequest> = []
  const queue = [...answers]
  const storeLayer = Layer.succeed(SessionStore, store)
  const layer = Layer.mergeAll(
    Layer.succeed(Providers, Providers.fixed([{ entry: model, client: makeOpenAIChatClient(model, {}) }])),
    Layer.succeed(Renderer, silentRenderer({ note: (text) => Effect.sync(() => notes.push(text)) })),
    Layer.succeed(Operator, {
      confirm: () => Effect.succeed(false),
      approve: (request) => Effect.sync(() => (asked.push(request), queue.shift() ?? { _tag: "NoOperator" as const })),
      askQuestions: () => Effect.succeed({ _tag: "NoOperator" as const })
    }),
    Toolbox.layerTest(tools, document.id).pipe(Layer.provideMerge(Layer.merge(ApprovalPolicy.layerTest(home), Redactor.layerTest()))),
    storeLayer,
    MediaStore.layerTest(),
    PluginLoader.layerTest(plugins, { note: (text) => Effect.sync(() => notes.push(text)) }),
    Layer.scoped(Conversation, Conversation.make(document)).pipe(Layer.provide(storeLayer))
  )
  const turn = (text: string) => Effect.runPromise(runTurn(text, { maxSteps: 5 }).pipe(Effect.provide(layer)))
  const saved = () => Effect.runPromise(store.load(document.id))
  const sessionFile = path.join(home, "sessions", `${document.id}.json`)
  return { fake, turn, saved, notes, asked, layer, sessionFile }
}

type ChatBody = { readonly messages: ReadonlyArray<{ readonly role: string; readonly content: unknown }> }
const messagesOf = (fake: FakeLlm, index: number) => (fake.requests[index]?.body as ChatBody).messages

describe("hooks in a turn", () => {
  it("onUserMessage's replacement is what is stored and sent; onTurnStarted/Finished hear it with the mode and the stop reason", async () => {
    const heard: Array<unknown> = []
    const { fake, turn, saved } = await setup([
      withHooks("p", {
        onUserMessage: ({ text }) => ({ text: `${text} (ticket T-1)` }),
        onTurnStarted: (t) => void heard.push(["started", t.text, t.mode]),
        onTurnFinished: (t) => void heard.push(["finished", t.text, t.mode, t.stopReason])
      })
    ])
    fake.script([{ text: ["done"] }])
    await turn("fix it")
    expect(messagesOf(fake, 0).at(-1)).toMatchObject({ role: "user", content: "fix it (ticket T-1)" })
    expect((await saved()).items[0]).toMatchObject({ _tag: "user", text: "fix it (ticket T-1)" })
    expect(heard).toEqual([
      ["started", "fix it (ticket T-1)", "work"],
      ["finished", "fix it (ticket T-1)", "work", "answered"]
    ])
  })

  it("onUserMessage does not run for a side question", async () => {
    let calls = 0
    const { fake, layer } = await setup([withHooks("p", { onUserMessage: () => (calls++, { text: "replaced" }) })])
    fake.script([{ text: ["an answer"] }])
    await Effect.runPromise(askSideQuestion("what is this?").pipe(Effect.provide(layer)))
    expect(calls).toBe(0)
    expect(JSON.stringify(messagesOf(fake, 0))).toContain("what is this?")
  })

  it("transformModel changes the outbound call only: the session file keeps what was stored", async () => {
    const { fake, turn, sessionFile } = await setup([
      withHooks("redactor", { transformModel: (r) => ({ ...r, items: r.items.map((item) => (item.role === "user" ? { ...item, text: item.text.replace("hunter2", "[secret]") } : item)) }) })
    ])
    fake.script([{ text: ["ok"] }])
    await turn("my password is hunter2")
    expect(JSON.stringify(messagesOf(fake, 0))).not.toContain("hunter2")
    expect(JSON.stringify(messagesOf(fake, 0))).toContain("my password is [secret]")
    expect(fs.readFileSync(sessionFile, "utf8")).toContain("my password is hunter2")
  })

  it("onModelResponse reads the response before it is committed; what it does to it changes nothing", async () => {
    const seen: Array<unknown> = []
    const { fake, turn, saved } = await setup([
      withHooks("p", {
        onModelResponse: (r) => {
          seen.push([r.purpose, r.finishReason, r.items.map((item) => item.text), r.usage?.outputTokens])
          ;(r.items as unknown as Array<{ text: string }>).forEach((item) => (item.text = "tampered"))
        }
      })
    ])
    fake.script([{ text: ["the ", "answer"], usage: { inputTokens: 5, outputTokens: 2 } }])
    await turn("q")
    expect(seen).toEqual([["work", "stop", ["the answer"], 2]])
    expect((await saved()).items[1]).toMatchObject({ _tag: "assistant", text: "the answer" })
  })

  it("a call onToolCall rewrote is classified and approved as rewritten, and runs only once approved", async () => {
    const { fake, turn, asked, notes } = await setup([withHooks("p", { onToolCall: (c) => ({ name: "change", arguments: { key: `${(c.arguments as { key: string }).key}!` } }) })], [{ _tag: "Deny" }])
    fake.script([{ toolCalls: [{ id: "c1", name: "lookup", arguments: { key: "k" } }] }, { text: ["ok"] }])
    await turn("go")
    // The model asked for a read that would have run unasked; the rewritten write asked and was denied.
    expect(asked.map((request) => [request.toolName, request.arguments, request.classification.summary])).toEqual([["change", { key: "k!" }, "change k!"]])
    expect(runs).toEqual([])
    expect(notes).toContain("Plugin 'p' rewrote the call lookup → change; it is classified and approved as rewritten.")
    expect(JSON.stringify(messagesOf(fake, 1))).toContain("Denied by the operator: change k!")
  })

  it("a hook that throws is skipped with a note and the turn goes on", async () => {
    const { fake, turn, notes } = await setup([
      withHooks("broken", {
        onToolCall: () => {
          throw new Error("oops")
        },
        onToolResult: () => {
          throw new Error("again")
        }
      })
    ])
    fake.script([{ toolCalls: [{ id: "c1", name: "lookup", arguments: { key: "k" } }] }, { text: ["ok"] }])
    await turn("go")
    expect(runs).toEqual(["lookup k"])
    expect(notes).toEqual(["Plugin 'broken': onToolCall threw (oops); skipped.", "Plugin 'broken': onToolResult threw (again); skipped."])
    expect(JSON.stringify(messagesOf(fake, 1))).toContain("value of k")
  })

  it("onToolResult replaces the text the model reads and the session keeps", async () => {
    const { fake, turn, saved } = await setup([withHooks("p", { onToolResult: (r) => ({ text: `${r.text} [checked by p]` }) })])
    fake.script([{ toolCalls: [{ id: "c1", name: "lookup", arguments: { key: "k" } }] }, { text: ["ok"] }])
    await turn("go")
    expect(JSON.stringify(messagesOf(fake, 1))).toContain("value of k [checked by p]")
    expect((await saved()).items.find((item) => item._tag === "tool_result")).toMatchObject({ text: "value of k [checked by p]" })
  })

  it("onApproval raising a read to ask puts it to the operator", async () => {
    const { fake, turn, asked } = await setup([withHooks("p", { onApproval: (a) => (a.tool === "lookup" ? { ask: true } : undefined) })], [{ _tag: "AllowOnce" }])
    fake.script([{ toolCalls: [{ id: "c1", name: "lookup", arguments: { key: "k" } }] }, { text: ["ok"] }])
    await turn("go")
    expect(asked.map((request) => request.toolName)).toEqual(["lookup"])
    expect(runs).toEqual(["lookup k"])
  })

  it("after a failed call that a raw hook changed, the host says the failure may be related", async () => {
    const { fake, turn, notes } = await setup([withRawHooks("Acme", { rebuildModel: (r) => ({ ...r, items: r.items.filter((item) => item.role !== "system") }) })])
    fake.script([{ kind: "error", status: 400 }])
    await expect(turn("go")).rejects.toThrow()
    expect(notes).toContain("Raw hook 'Acme' changed this model request. The failure may be related.")
    expect(messagesOf(fake, 0).some((message) => message.role === "system")).toBe(false)
  })

  it("rebuildModel changes the outbound call only: the session file keeps the transcript as stored", async () => {
    const { fake, turn, sessionFile } = await setup([withRawHooks("Acme", { rebuildModel: (r) => ({ ...r, items: [...r.items, { id: "extra", role: "user", text: "injected context" }] }) })])
    fake.script([{ text: "ok" }])
    await turn("original question")
    expect(JSON.stringify(messagesOf(fake, 0))).toContain("injected context")
    const stored = fs.readFileSync(sessionFile, "utf8")
    expect(stored).toContain("original question")
    expect(stored).not.toContain("injected context")
  })

  it("rewriteApproval sets the classification, but the policy still decides: plan approval refuses a write whatever it says", async () => {
    const { layer } = await setup([
      withRawHooks("Acme", { rewriteApproval: (c) => ({ ...c, risk: "low", summary: "harmless", allow: true, decision: "Run" }) as never })
    ])
    const output = await Effect.runPromise(executeToolCall({ id: "c1", name: "change", arguments: { key: "k" } }, { mode: "work", approval: "plan" }).pipe(Effect.provide(layer)))
    expect(runs).toEqual([])
    expect(output).toEqual({ isError: true, text: "Denied: harmless. the plan approval mode only lets read-only calls inside the workspace run." })
  })
})
