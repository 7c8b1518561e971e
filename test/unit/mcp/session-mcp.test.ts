/**
 * The session's MCP servers as layers/session.ts starts them, with a fake LLM driving real turns:
 * a `${env:…}` credential in a server's env is redacted from what the server echoes back, before
 * it reaches the session file or the next model request; a server with `"sampling": true` gets
 * the session's model's answer once the operator approves, and the side request is not stored.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { headlessOperator } from "../../../layers/headless.ts"
import type { PreparedSession } from "../../../layers/prepare.ts"
import { startSession } from "../../../layers/session.ts"
import type { Config } from "../../../src/config/schema.ts"
import type { OperatorShape } from "../../../src/engine/operator.ts"
import { runTurn } from "../../../src/engine/turn.ts"
import type { Question } from "../../../src/tools/questions.ts"
import { startFakeLlm, type FakeLlm } from "../../support/fake-llm/server.ts"
import { everythingServer, probeServer } from "../../support/mcp/servers.ts"
import { preparedSession } from "../../support/prepared.ts"
import { silentRenderer } from "../../support/renderer.ts"
import { tempDir } from "../../support/temp.ts"

const servers: Array<FakeLlm> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

/** A fake model, and a session prepared with a config naming `mcpServers` (and its approval mode, when given). */
const setUp = async (mcpServers: Config["mcpServers"], approval?: PreparedSession["document"]["approval"]) => {
  const fake = await startFakeLlm()
  servers.push(fake)
  const config: Config = { providers: { local: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, models: { m: {} } } }, mcpServers }
  const prepared = preparedSession(await tempDir(), config, "local/m")
  return { fake, prepared: approval === undefined ? prepared : { ...prepared, document: { ...prepared.document, approval } } }
}

/** One turn of a session started from `prepared`, as layers/session.ts starts it; `notes` gets the renderer's notes. */
const oneTurn = (prepared: PreparedSession, prompt: string, host: { readonly env: Record<string, string>; readonly operator: OperatorShape; readonly notes?: Array<string> }) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const renderer = silentRenderer({ note: (text) => Effect.sync(() => void host.notes?.push(text)) })
        const session = yield* startSession(prepared, { env: host.env, renderer, operator: host.operator })
        yield* runTurn(prompt, { maxSteps: 5 }).pipe(Effect.provide(session.services))
      })
    )
  )

describe("MCP servers in a session", () => {
  it("a note quoting a server's elicitation message has the session's secrets redacted", async () => {
    const token = "mcp-tok-5b20e9c4a7f1d386"
    const { fake, prepared } = await setUp({ probe: { command: process.execPath, args: [probeServer], env: { TRACKER_TOKEN: "${env:CRYSTAL_TEST_TRACKER_TOKEN}" } } }, "full")
    fake.script([{ toolCalls: [{ name: "mcp__probe__elicit", arguments: { message: `Confirm ${token}` } }] }, { text: "Declined." }])
    const notes: Array<string> = []
    await oneTurn(prepared, "ask", { env: { CRYSTAL_TEST_TRACKER_TOKEN: token }, operator: headlessOperator, notes })
    expect(notes).toContain("MCP server probe asked for input (Confirm [redacted]); declined: nobody to answer in crystal run.")
    expect(notes.join("\n")).not.toContain(token)
  })

  it("a ${env:…} value given to a server's env is redacted from its tool output: not in the session file, not in the next request", async () => {
    const token = "mcp-tok-7d41c2b9e0a35f68"
    const { fake, prepared } = await setUp(
      { everything: { command: process.execPath, args: [everythingServer, "stdio"], env: { TRACKER_TOKEN: "${env:CRYSTAL_TEST_TRACKER_TOKEN}" } } },
      "full"
    )
    fake.script([{ toolCalls: [{ name: "mcp__everything__get-env", arguments: {} }] }, { text: "Printed." }])
    await oneTurn(prepared, "print the server's environment", { env: { CRYSTAL_TEST_TRACKER_TOKEN: token }, operator: headlessOperator })
    const second = fake.requests.filter((request) => request.path === "/v1/chat/completions")[1]
    expect(second?.rawBody).toContain('\\"TRACKER_TOKEN\\": \\"[redacted]\\"')
    expect(second?.rawBody).not.toContain(token)
    const files = (await fs.readdir(prepared.store.dir)).filter((file) => file.endsWith(".json"))
    const saved = (await Promise.all(files.map((file) => fs.readFile(path.join(prepared.store.dir, file), "utf8")))).join("\n")
    expect(saved).toContain("TRACKER_TOKEN")
    expect(saved).not.toContain(token)
  })

  it("a ${env:…} credential a server puts in a tool's description reaches the model redacted", async () => {
    const token = "mcp-tok-1f9a2c7e55b0d834"
    const { fake, prepared } = await setUp({
      probe: { command: process.execPath, args: [probeServer], env: { MCP_PROBE_TOOL: "leaky", MCP_PROBE_DESCRIPTION: "Uses ${env:CRYSTAL_TEST_API_TOKEN} to call home" } }
    })
    fake.script([{ text: "Fine." }])
    await oneTurn(prepared, "hello", { env: { CRYSTAL_TEST_API_TOKEN: token }, operator: headlessOperator })
    const first = fake.requests.find((request) => request.path === "/v1/chat/completions")
    expect(first?.rawBody).toContain("mcp__probe__leaky")
    expect(first?.rawBody).toContain("Uses [redacted] to call home")
    expect(first?.rawBody).not.toContain(token)
  })

  it("sampling: the operator approves, the session's model answers in a side request, the answer is the tool's result and nothing else is stored", async () => {
    const { fake, prepared } = await setUp({ everything: { command: process.execPath, args: [everythingServer, "stdio"], sampling: true } })
    const asked: Array<Question> = []
    const operator: OperatorShape = {
      confirm: (_question, answer) => Effect.succeed(answer),
      approve: () => Effect.succeed({ _tag: "AllowOnce" }),
      askQuestions: (questions) =>
        Effect.sync(() => {
          asked.push(...questions)
          return { _tag: "Answered", answers: [{ selected: ["Send"] }] }
        })
    }
    fake.script([
      { toolCalls: [{ name: "mcp__everything__trigger-sampling-request", arguments: { prompt: "name a colour", maxTokens: 40 } }] },
      { text: "Ultramarine." },
      { text: "The server's model said ultramarine." }
    ])
    await oneTurn(prepared, "ask the server to sample", { env: {}, operator })
    expect(asked.map((question) => question.header)).toEqual(["everything: sampling"])
    const requests = fake.requests.filter((request) => request.path === "/v1/chat/completions")
    expect(requests).toHaveLength(3)
    const sampling = requests[1]?.body as { messages: ReadonlyArray<{ role: string; content: unknown }>; max_tokens: number; tools?: unknown }
    expect(sampling.messages).toEqual([
      { role: "system", content: "You are a helpful test server." },
      { role: "user", content: "Resource trigger-sampling-request context: name a colour" }
    ])
    expect(sampling.max_tokens).toBe(40)
    expect(sampling.tools).toBeUndefined()
    expect(requests[2]?.rawBody).toContain("Ultramarine.")
    const files = (await fs.readdir(prepared.store.dir)).filter((file) => file.endsWith(".json"))
    const saved = JSON.parse(await fs.readFile(path.join(prepared.store.dir, files[0] ?? ""), "utf8")) as { items: ReadonlyArray<{ _tag: string; text?: string }> }
    expect(saved.items.map((item) => item._tag)).toEqual(["user", "assistant", "tool_result", "assistant"])
    expect(saved.items[2]?.text).toContain('"text": "Ultramarine."')
    expect(saved.items.some((item) => item._tag === "user" && item.text?.includes("Resource trigger-sampling-request"))).toBe(false)
  })
})
