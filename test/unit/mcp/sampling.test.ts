/**
 * Sampling against real servers: server-everything's trigger-sampling-request and the probe's
 * `sample` tool, with a scripted operator answering the question and the fake LLM answering the
 * side request made through the same adapter the session uses (layers/session-mcp.ts).
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterEach, describe, expect, it } from "vitest"
import { samplingModel } from "../../../layers/session-mcp.ts"
import { makePathFence } from "../../../src/approval/path-fence.ts"
import type { McpServerSettings } from "../../../src/config/schema.ts"
import * as engine from "../../../src/engine/sampling.ts"
import { makeMcpServers } from "../../../src/mcp/mcp-servers.ts"
import { answerSampling, samplingPromptOf, samplingQuestion } from "../../../src/mcp/sampling.ts"
import { planServer } from "../../../src/mcp/server-config.ts"
import type { HookPipeline } from "../../../src/plugins/pipeline.ts"
import { makeOpenAIChatClient } from "../../../src/providers/openai-chat.ts"
import { Providers } from "../../../src/providers/providers.ts"
import { Redactor } from "../../../src/secrets/redactor.ts"
import { noSecrets } from "../../../src/secrets/secrets.ts"
import type { Question, QuestionAsker, QuestionsOutcome } from "../../../src/tools/questions.ts"
import { makeSpill } from "../../../src/tools/spill.ts"
import type { ToolOutput } from "../../../src/tools/tool.ts"
import { startFakeLlm, type FakeLlm, type Reply } from "../../support/fake-llm/server.ts"
import { everythingServer, probeServer } from "../../support/mcp/servers.ts"
import { localModel } from "../../support/model-entry.ts"
import { pipelineOf, withHooks } from "../../support/plugins.ts"
import { tempDir } from "../../support/temp.ts"

const scopes: Array<Scope.CloseableScope> = []
const fakes: Array<FakeLlm> = []
afterEach(async () => {
  await Promise.all(scopes.splice(0).map((scope) => Effect.runPromise(Scope.close(scope, Exit.void))))
  await Promise.all(fakes.splice(0).map((fake) => fake.close()))
})

const env = (): Record<string, string> => Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined))

/** An operator who answers the sampling question with `choice` (or has nobody, or dismisses it), keeping what was asked. */
const operator = (choice: "Send" | "Decline" | "NoOperator" | "Dismissed") => {
  const asked: Array<Question> = []
  const asker: QuestionAsker = {
    askQuestions: (questions) =>
      Effect.sync((): QuestionsOutcome => {
        asked.push(...questions)
        if (choice === "NoOperator") return { _tag: "NoOperator" }
        if (choice === "Dismissed") return { _tag: "Dismissed" }
        return { _tag: "Answered", answers: [{ selected: [choice] }] }
      })
  }
  return { asker, asked }
}

interface Setup {
  readonly servers: Readonly<Record<string, McpServerSettings>>
  readonly asker: QuestionAsker
  readonly replies?: ReadonlyArray<Reply>
  readonly imageInput?: boolean
  readonly hooks?: HookPipeline
  /** The session's secrets (none by default). */
  readonly secrets?: ReadonlyArray<string>
}

/** The servers with sampling wired as a session wires it; calls `tool` and returns its output, the notes and the fake LLM. */
const callWith = async (setup: Setup, tool: string, args: unknown) => {
  const fake = await startFakeLlm()
  fakes.push(fake)
  fake.script(setup.replies ?? [])
  const model = localModel(fake.url, setup.imageInput ?? false)
  const providers = Providers.fixed([{ entry: model, client: makeOpenAIChatClient(model, {}) }])
  const workspace = await tempDir()
  const notes: Array<string> = []
  const note = (text: string) => void notes.push(text)
  const scope = Effect.runSync(Scope.make())
  scopes.push(scope)
  const plans = Object.entries(setup.servers).map(([name, settings]) => planServer(name, settings, { workspace, env: process.env, baseEnv: env() }))
  const redactor = Effect.runSync(Redactor.make(setup.secrets ?? []))
  const mcp = await Effect.runPromise(
    makeMcpServers({
      plans,
      roots: () => [workspace],
      redactor,
      note,
      sample: (server, params, signal) =>
        answerSampling({ asker: setup.asker, model: samplingModel(engine, { providers, hooks: setup.hooks, redactor }), note }, server, params, signal)
    }).pipe(Scope.extend(scope))
  )
  await Effect.runPromise(mcp.beforeTurn)
  const found = mcp.tools().find((candidate) => candidate.name === tool)
  if (found === undefined) throw new Error(`no ${tool} among ${mcp.tools().map((t) => t.name).join(", ")}`)
  const spillDir = await tempDir()
  const run = (input: unknown): Promise<ToolOutput> =>
    Effect.runPromise(found.run(input as never, { fence: makePathFence(workspace, []), sessionId: "t", secrets: noSecrets, spill: makeSpill(spillDir), spillDir }))
  const output = await run(args)
  const modelRequests = fake.requests.filter((request) => request.path === "/v1/chat/completions")
  return { output, notes, modelRequests, toolNames: mcp.tools().map((t) => t.name), run, fake }
}

const everything = (extra: Partial<McpServerSettings> = {}): McpServerSettings => ({ command: process.execPath, args: [everythingServer, "stdio"], ...extra })
const probe = (extra: Partial<McpServerSettings> = {}): McpServerSettings => ({ command: process.execPath, args: [probeServer], ...extra })

interface ChatBody {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: unknown }>
  readonly max_tokens?: number
  readonly tools?: ReadonlyArray<unknown>
}

describe("sampling with \"sampling\": true (server-everything's trigger-sampling-request)", () => {
  it("asks the operator, then the active model in a side request; the answer goes back to the server", async () => {
    const { asker, asked } = operator("Send")
    const { output, notes, modelRequests } = await callWith(
      { servers: { everything: everything({ sampling: true }) }, asker, replies: [{ text: "Forty-two, said the model." }] },
      "mcp__everything__trigger-sampling-request",
      { prompt: "what is six times seven?", maxTokens: 80 }
    )
    expect(asked).toHaveLength(1)
    expect(asked[0]?.header).toBe("everything: sampling")
    expect(asked[0]?.question).toBe(
      [
        "MCP server everything asks local/m for an answer of at most 80 tokens (nothing of this conversation is sent; the answer goes to the server only).",
        "System prompt: You are a helpful test server.",
        "user: Resource trigger-sampling-request context: what is six times seven?"
      ].join("\n")
    )
    expect(asked[0]?.options.map((option) => option.label)).toEqual(["Send", "Decline"])
    expect(asked[0]?.initial).toEqual(["Decline"])
    // One side request: the server's system prompt and message, no tools, maxTokens as asked (under the model's 1024).
    expect(modelRequests).toHaveLength(1)
    const body = modelRequests[0]?.body as ChatBody
    expect(body.messages).toEqual([
      { role: "system", content: "You are a helpful test server." },
      { role: "user", content: "Resource trigger-sampling-request context: what is six times seven?" }
    ])
    expect(body.max_tokens).toBe(80)
    expect(body.tools ?? []).toEqual([])
    // What the server got, as it prints it: the answer, the model's name and why it stopped (nothing else of the session, no key).
    expect(output.isError).toBeUndefined()
    const result = JSON.parse(output.text.replace(/^LLM sampling result: \n/, "")) as Record<string, unknown>
    expect(result).toEqual({ role: "assistant", content: { type: "text", text: "Forty-two, said the model." }, model: "local/m", stopReason: "endTurn" })
    expect(notes).toEqual([])
  })

  it("the call that asked does not time out while the operator answers and the model writes", async () => {
    const asker: QuestionAsker = {
      askQuestions: () => Effect.as(Effect.sleep("1500 millis"), { _tag: "Answered", answers: [{ selected: ["Send"] }] } as const)
    }
    const { output } = await callWith(
      { servers: { everything: everything({ sampling: true, toolTimeoutSeconds: 1 }) }, asker, replies: [{ text: "Slow but sure.", delayMs: 700 }] },
      "mcp__everything__trigger-sampling-request",
      { prompt: "take your time" }
    )
    expect(output.text).toContain('"text": "Slow but sure."')
  })

  it("maxTokens above the model's output limit is capped to it; a cut answer says maxTokens", async () => {
    const { asker } = operator("Send")
    const { output, modelRequests } = await callWith(
      { servers: { everything: everything({ sampling: true }) }, asker, replies: [{ text: "A long answer, cut", finishReason: "length" }] },
      "mcp__everything__trigger-sampling-request",
      { prompt: "write a book", maxTokens: 1_000_000 }
    )
    expect((modelRequests[0]?.body as ChatBody).max_tokens).toBe(1024)
    expect(output.text).toContain('"stopReason": "maxTokens"')
  })

  it("declined or dismissed: the server hears that the operator declined, and no model request is made", async () => {
    for (const choice of ["Decline", "Dismissed"] as const) {
      const { asker } = operator(choice)
      const { output, notes, modelRequests } = await callWith({ servers: { everything: everything({ sampling: true }) }, asker }, "mcp__everything__trigger-sampling-request", { prompt: "hi" })
      expect(output.isError).toBe(true)
      expect(output.text).toContain("MCP error -1: The operator declined the sampling request.")
      expect(modelRequests).toEqual([])
      expect(notes).toEqual([])
    }
  })

  it("with nobody to ask (crystal run) it is declined with a note", async () => {
    const { asker } = operator("NoOperator")
    const { output, notes, modelRequests } = await callWith({ servers: { everything: everything({ sampling: true }) }, asker }, "mcp__everything__trigger-sampling-request", { prompt: "hi" })
    expect(output.isError).toBe(true)
    expect(output.text).toContain("MCP error -1: The sampling request was declined: Crystal runs without an operator to approve it (crystal run).")
    expect(notes).toEqual(["MCP server everything asked to use your model (sampling); declined: nobody to approve it in crystal run."])
    expect(modelRequests).toEqual([])
  })

  it("a failed model call is a JSON-RPC error with the reason, and a note", async () => {
    const { asker } = operator("Send")
    const { output, notes } = await callWith(
      { servers: { everything: everything({ sampling: true }) }, asker, replies: [{ kind: "error", status: 400, message: "this model is tired" }] },
      "mcp__everything__trigger-sampling-request",
      { prompt: "hi" }
    )
    expect(output.isError).toBe(true)
    expect(output.text).toMatch(/MCP error -32603: Sampling failed: local\/m failed: .*this model is tired/)
    expect(notes).toHaveLength(1)
    expect(notes[0]).toMatch(/^MCP server everything's sampling request failed: local\/m failed: .*this model is tired/)
  })

  it("passes the plugins' transformModel, as /side does (purpose side), and redacts the session's secrets from what the server sends", async () => {
    const seen: Array<string> = []
    const { pipeline } = pipelineOf([
      withHooks("shout", {
        transformModel: (request) => {
          seen.push(request.purpose)
          return { ...request, items: request.items.map((item) => (item.role === "user" ? { ...item, text: item.text.toUpperCase() } : item)) }
        }
      })
    ])
    const { asker, asked } = operator("Send")
    const { modelRequests } = await callWith(
      { servers: { everything: everything({ sampling: true }) }, asker, replies: [{ text: "ok" }], hooks: pipeline, secrets: ["sk-sampling-secret-0123456789"] },
      "mcp__everything__trigger-sampling-request",
      { prompt: "the key is sk-sampling-secret-0123456789" }
    )
    expect(seen).toEqual(["side"])
    expect((modelRequests[0]?.body as ChatBody).messages[1]).toEqual({ role: "user", content: "RESOURCE TRIGGER-SAMPLING-REQUEST CONTEXT: THE KEY IS [REDACTED]" })
    // The operator is shown what the server sent.
    expect(asked[0]?.question).toContain("the key is sk-sampling-secret-0123456789")
  })
})

describe("sampling and images (the probe's sample tool)", () => {
  it("a model that takes images gets the server's image; one that does not gets a note in the text", async () => {
    const withImages = await callWith(
      { servers: { probe: probe({ sampling: true }) }, asker: operator("Send").asker, replies: [{ text: "a red dot" }], imageInput: true },
      "mcp__probe__sample",
      { prompt: "what is this?", image: true }
    )
    const content = (withImages.modelRequests[0]?.body as ChatBody).messages[1]?.content as ReadonlyArray<Record<string, unknown>>
    expect(content[0]).toEqual({ type: "text", text: "what is this?\n[Image #1]" })
    expect(content[1]).toMatchObject({ type: "image_url", image_url: { url: expect.stringMatching(/^data:image\/png;base64,iVBORw0KGgo/) } })
    expect(JSON.parse(withImages.output.text)).toMatchObject({ content: { type: "text", text: "a red dot" }, model: "local/m" })

    const textOnly = await callWith(
      { servers: { probe: probe({ sampling: true }) }, asker: operator("Send").asker, replies: [{ text: "no idea" }] },
      "mcp__probe__sample",
      { prompt: "what is this?", image: true }
    )
    expect((textOnly.modelRequests[0]?.body as ChatBody).messages[1]).toEqual({
      role: "user",
      content: "what is this?\n[an image (image/png, 70 bytes) from the server is not shown: local/m does not take images]"
    })
  })
})

describe("a sampling request the server gives up on", () => {
  it("while the operator is asked: nothing goes to the model, and the operator hears why", async () => {
    const asker: QuestionAsker = {
      askQuestions: () => Effect.as(Effect.sleep("1500 millis"), { _tag: "Answered", answers: [{ selected: ["Send"] }] } as const)
    }
    const { output, notes, fake } = await callWith({ servers: { probe: probe({ sampling: true }) }, asker, replies: [{ text: "too late" }] }, "mcp__probe__sample", {
      prompt: "hi",
      timeoutMs: 300
    })
    expect(output.text).toMatch(/^sampling failed: MCP error -32001: Request timed out/)
    // The dialog is still open when the server's call returns; the operator answers after.
    await expect.poll(() => notes, { timeout: 5000 }).toEqual(["MCP server probe cancelled its sampling request before you answered; nothing was sent to the model."])
    expect(fake.requests).toEqual([])
  })
})

describe("sampling that is off (the default)", () => {
  it("is not declared, so server-everything offers no trigger-sampling-request", async () => {
    const { toolNames } = await callWith({ servers: { everything: everything() }, asker: operator("Send").asker }, "mcp__everything__echo", { message: "x" })
    expect(toolNames).not.toContain("mcp__everything__trigger-sampling-request")
  })

  it("a server that asks anyway gets a clear error saying it is off and how to turn it on; the operator hears of it once", async () => {
    const { asker, asked } = operator("Send")
    const first = await callWith({ servers: { probe: probe() }, asker }, "mcp__probe__sample", { prompt: "hi" })
    expect(first.output.text).toBe(
      'sampling failed: MCP error -32601: Sampling is off for this server (probe) in Crystal. The operator can turn it on with "sampling": true in mcpServers.probe of Crystal\'s config.json; each request is then approved by the operator.'
    )
    expect(first.notes).toEqual([
      'MCP server probe asked to use your model (sampling), which is off for it: "sampling": true in its entry (config.json) allows it, each request approved by you.'
    ])
    expect(asked).toEqual([])
    expect(first.modelRequests).toEqual([])
    expect((await first.run({ prompt: "again" })).text).toContain("Sampling is off for this server (probe) in Crystal.")
    expect(first.notes).toHaveLength(1)
  })
})

describe("the sampling request and question", () => {
  const params = (messages: ReadonlyArray<unknown>, extra: Record<string, unknown> = {}) => ({ messages, maxTokens: 100, ...extra }) as never

  it("refuses tools, tool blocks and empty requests; audio becomes a note", () => {
    expect(samplingPromptOf("s", params([{ role: "user", content: { type: "text", text: "x" } }], { tools: [{ name: "t", inputSchema: { type: "object" } }] }))).toBe(
      "Crystal's sampling offers the model no tools (the client did not declare sampling.tools)"
    )
    expect(samplingPromptOf("s", params([{ role: "assistant", content: [{ type: "tool_use", id: "1", name: "t", input: {} }] }]))).toBe(
      "a message holds a tool_use block, and Crystal's sampling runs no tools"
    )
    expect(samplingPromptOf("s", params([]))).toBe("the request has no messages")
    expect(samplingPromptOf("s", params([{ role: "user", content: [{ type: "audio", data: "AAAA", mimeType: "audio/wav" }] }]))).toEqual({
      server: "s",
      system: "",
      maxTokens: 100,
      messages: [{ role: "user", parts: [{ type: "text", text: "[audio (audio/wav, 3 bytes) from the server is not sent: Crystal sends no audio]" }] }]
    })
  })

  it("shows each message on one line, clipped, terminal escapes removed, and at most the last six", () => {
    const messages = Array.from({ length: 8 }, (_, i) => ({ role: i % 2 === 0 ? "user" : "assistant", content: { type: "text", text: `message ${i}\n\u001b[31mred\u001b[0m ${"x".repeat(400)}` } }))
    const prompt = samplingPromptOf("s", params(messages, { systemPrompt: "y".repeat(500) }))
    if (typeof prompt === "string") throw new Error(prompt)
    const lines = samplingQuestion(prompt, "p/m").question.split("\n")
    expect(lines[1]).toBe(`System prompt: ${"y".repeat(299)}…`)
    expect(lines[2]).toBe("(2 earlier messages not shown)")
    expect(lines).toHaveLength(9)
    expect(lines[3]?.startsWith("user: message 2 [31mred [0m xxx")).toBe(true)
    expect(lines[3]?.length).toBe("user: ".length + 300)
    expect(lines.join("\n")).not.toContain("\u001b")
  })
})
