/**
 * The model's own text never reaches disk or the renderer with a session secret in it (issue 30),
 * through the real session (layers/session.ts: its store and renderer) against the fake LLM
 * server: a reply and reasoning with a provider key split across deltas, a tool call whose
 * arguments hold it, a title, a compaction summary, a fork and an export. The conversation in
 * memory keeps what the model said: the call runs with the key, and the next request carries the
 * answer, and Anthropic's signed thinking, exactly as they were received.
 */
import { createHash } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { headlessOperator } from "../../../layers/headless.ts"
import { openSessionHost, type SessionHostShape } from "../../../layers/session-host.ts"
import { prepareSession } from "../../../layers/prepare.ts"
import { defaultSessionFlags } from "../../../src/cli/flags.ts"
import { Conversation } from "../../../src/engine/conversation.ts"
import { runTurn } from "../../../src/engine/turn.ts"
import { REDACTED } from "../../../src/secrets/redact.ts"
import type { AssistantMessage } from "../../../src/session/items.ts"
import { startFakeLlm, type FakeLlm } from "../../support/fake-llm/server.ts"
import { silentRenderer } from "../../support/renderer.ts"
import { homeAndWorkspace } from "../../support/home-and-workspace.ts"

const servers: Array<FakeLlm> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

const key = "sk-proj-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a"

/** The first 12-character piece of the key in `text`, or undefined. */
const leakIn = (text: string): string | undefined => {
  for (let at = 0; at + 12 <= key.length; at++) if (text.includes(key.slice(at, at + 12))) return key.slice(at, at + 12)
  return undefined
}

/** Every file under `dir`, with its text. */
const filesUnder = async (dir: string): Promise<Array<[string, string]>> => {
  const entries = await fs.readdir(dir, { withFileTypes: true, recursive: true })
  const files = entries.filter((entry) => entry.isFile()).map((entry) => path.join(entry.parentPath, entry.name))
  return Promise.all(files.map(async (file): Promise<[string, string]> => [file, await fs.readFile(file, "latin1")]))
}

/** What the renderer was handed, as text. */
const recorder = () => {
  const shown: Array<string> = []
  const push = (kind: string) => (value: unknown) => Effect.sync(() => void shown.push(`${kind}:${typeof value === "string" ? value : JSON.stringify(value)}`))
  const renderer = silentRenderer({
    textDelta: push("delta"),
    reasoningDelta: push("reasoning"),
    assistantMessage: push("message"),
    toolStarted: push("call"),
    approval: push("approval"),
    toolFinished: push("result"),
    note: push("note"),
    failed: push("failed")
  })
  return { shown, renderer }
}

const setup = async (protocol: "openai-chat" | "anthropic") => {
  const fake = await startFakeLlm()
  servers.push(fake)
  const baseURL = protocol === "anthropic" ? fake.url : `${fake.url}/v1`
  const { home, workspace } = await homeAndWorkspace({
    model: "local/test-model",
    providers: { local: { protocol, baseURL, apiKeyEnv: "LOCAL_KEY", models: { "test-model": { reasoning: true } } } }
  })
  return { fake, home, workspace, env: { CRYSTAL_HOME: home, LOCAL_KEY: "local-test-key", OPENAI_API_KEY: key } }
}

const turn = (host: SessionHostShape, text: string) => runTurn(text, { maxSteps: 5 }).pipe(Effect.provide(host.current().session.services))
const inMemory = (host: SessionHostShape) => Context.get(host.current().session.services, Conversation).document

/** A reply with the key in its reasoning and its text, both split across deltas, and a call whose arguments hold it. */
const keyedReply = {
  reasoning: ["The operator pasted sk-pr", `${key.slice(5, 30)}`, `${key.slice(30)} earlier.`],
  text: ["Your key is ", key.slice(0, 7), key.slice(7, 25), `${key.slice(25)}; counting it.`],
  toolCalls: [{ id: "call_1", name: "bash", arguments: { command: `printf %s '${key}' | wc -c` } }]
}

const runScenario = async (protocol: "openai-chat" | "anthropic") => {
  const { fake, home, workspace, env } = await setup(protocol)
  const { shown, renderer } = recorder()
  fake.script([
    keyedReply,
    { text: `Counted ${key}.` },
    { text: "In the fork." },
    { text: `Key ${key}` },
    { text: `SUMMARY: the operator shared ${key}.` },
    { text: "After the summary." }
  ])
  const flags = { ...defaultSessionFlags, approval: "full" as const }
  const outcome = await Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const prepared = yield* prepareSession(flags, workspace, env)
        const host = yield* openSessionHost(prepared, { flags, env, renderer, operator: headlessOperator })
        yield* turn(host, "count my key")
        const memory = yield* inMemory(host)
        // The fork goes on from its file: what a resumed session sends.
        const forked = yield* host.fork
        yield* turn(host, "in the fork")
        const title = yield* host.current().session.nameSession()
        const compacted = yield* host.current().session.controls.compact().pipe(Effect.provide(host.current().session.services))
        yield* turn(host, "go on")
        const exported = yield* host.exportTo()
        return { memory, title, compacted, exported, id: forked.prepared.document.id }
      })
    )
  )
  return { fake, home, workspace, shown, ...outcome }
}

describe.each(["openai-chat", "anthropic"] as const)("the model's text with a session secret (%s)", (protocol) => {
  it("reaches no file and no renderer event; the call and the next request get it as the model sent it", async () => {
    const { fake, home, workspace, shown, memory, title, compacted, exported, id } = await runScenario(protocol)
    expect(compacted._tag).toBe("Compacted")
    expect(title).toBe(`Key ${key}`)

    // What was shown: the answer's deltas put together hold the redaction, never a piece of the key.
    const deltas = shown.filter((line) => line.startsWith("delta:")).map((line) => line.slice(6))
    expect(deltas.join("")).toContain(`Your key is ${REDACTED}; counting it.`)
    const reasoning = shown.filter((line) => line.startsWith("reasoning:")).map((line) => line.slice(10))
    expect(reasoning.join("")).toBe(`The operator pasted ${REDACTED} earlier.`)
    expect(shown.find((line) => line.startsWith("call:"))).toContain(`printf %s '${REDACTED}' | wc -c`)
    expect(leakIn(shown.join("\n"))).toBeUndefined()

    // The call ran with the key the model sent: its length, not that of "[redacted]".
    const result = shown.find((line) => line.startsWith("result:"))
    expect(JSON.parse(result?.slice(7) ?? "{}").text).toBe(`exit 0\n${key.length}`)

    // In memory, the conversation is what was said; the next request carries it back exactly.
    const answer = memory.items.find((item): item is AssistantMessage => item._tag === "assistant")
    expect(answer?.text).toBe(`Your key is ${key}; counting it.`)
    const second = JSON.stringify(fake.requests[1]?.body)
    expect(second).toContain(`Your key is ${key}; counting it.`)
    if (protocol === "anthropic") {
      // The signed thinking block goes back byte-exact: its text and the signature the server gave
      // for it in its first answer (the fake signs the request's number and the text).
      const thinking = keyedReply.reasoning.join("")
      const signature = createHash("sha256").update(`1\n${thinking}`).digest("base64")
      const messages = (fake.requests[1]?.body as { messages: Array<{ role: string; content: Array<unknown> }> }).messages
      expect(messages[1]?.role).toBe("assistant")
      expect(messages[1]?.content[0]).toEqual({ type: "thinking", thinking, signature })
    }

    // A session that goes on from its file (the fork) sends the redacted text; Anthropic's thinking
    // block, whose text changed, is left out rather than sent with a signature that no longer fits.
    const resumed = JSON.stringify(fake.requests[2]?.body)
    expect(resumed).toContain(`Your key is ${REDACTED}; counting it.`)
    expect(leakIn(resumed)).toBeUndefined()
    expect(resumed).not.toContain('"type":"thinking"')

    // On disk: the session, its fork and the export hold no piece of the key.
    const files = [...(await filesUnder(home)), ...(await filesUnder(workspace))]
    expect(files.map(([file]) => file)).toContain(exported.file)
    expect(files.filter(([file]) => file.endsWith(".json")).length).toBeGreaterThanOrEqual(3)
    expect(files.flatMap(([file, text]) => (leakIn(text) === undefined ? [] : [`${file}: ${leakIn(text)}`]))).toEqual([])
    const saved = JSON.parse(await fs.readFile(path.join(home, "sessions", `${id}.json`), "utf8"))
    expect(saved.title).toBe(`Key ${REDACTED}`)
    const stored = saved.items.find((item: { _tag: string }) => item._tag === "assistant")
    expect(stored.text).toBe(`Your key is ${REDACTED}; counting it.`)
    expect(stored.toolCalls[0].arguments).toEqual({ command: `printf %s '${REDACTED}' | wc -c` })
    // The signed reasoning part lost its signature with its text: a resumed session does not replay it.
    expect(stored.reasoning).toEqual([{ text: `The operator pasted ${REDACTED} earlier.` }])
    expect(saved.items.find((item: { _tag: string }) => item._tag === "compaction").summary).toBe(`SUMMARY: the operator shared ${REDACTED}.`)
  })
})
