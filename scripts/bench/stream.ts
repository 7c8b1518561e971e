/// <reference types="bun" />
/**
 * Harness overhead per streamed token, per adapter: the time to consume one 20,000-token scripted
 * stream through Crystal's adapter (ModelClient.stream run to its end) next to the same stream
 * through the bare SDK (scripts/bench/sdk/*), in the same process and run, interleaved. The fake
 * server runs in a process of its own.
 * Usage: bun scripts/bench/stream.ts [--runs N] [--tokens N]
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"
import type { Protocol } from "../../src/config/schema.ts"
import type { ModelEntry } from "../../src/providers/catalog.ts"
import type { ModelClientShape } from "../../src/providers/model-client.ts"
import { makeModelClient } from "../../src/providers/registry.ts"
import { flag, median, ms, ratio, root } from "./measure.ts"

const runs = flag("--runs", 9)
const tokens = flag("--tokens", 20_000)

interface Target {
  readonly protocol: Protocol
  /** The base URL each side is given, from the server's root. */
  readonly baseURL: (url: string) => string
  readonly sdk: () => Promise<{ readonly consumeWithSdk: (baseURL: string, model: string, prompt: string) => Promise<number> }>
}

const targets: ReadonlyArray<Target> = [
  { protocol: "openai-chat", baseURL: (url) => `${url}/v1`, sdk: () => import("./sdk/openai-chat.ts") },
  { protocol: "openai-responses", baseURL: (url) => `${url}/v1`, sdk: () => import("./sdk/openai-responses.ts") },
  { protocol: "anthropic", baseURL: (url) => url, sdk: () => import("./sdk/anthropic.ts") },
  { protocol: "gemini", baseURL: (url) => url, sdk: () => import("./sdk/gemini.ts") },
  { protocol: "ollama", baseURL: (url) => url, sdk: () => import("./sdk/ollama.ts") },
  { protocol: "deepseek", baseURL: (url) => `${url}/deepseek`, sdk: () => import("./sdk/deepseek.ts") }
]

const pieces = Array.from({ length: tokens }, (_, i) => (i % 12 === 11 ? " end.\n" : ` word${i % 7}`))
const replyFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-")), "reply.json")
fs.writeFileSync(replyFile, JSON.stringify({ text: pieces }))
const server = Bun.spawn([process.execPath, path.join(root, "scripts/bench/fake-server-process.ts"), replyFile], {
  stdout: "pipe",
  stderr: "inherit"
})
const reader = server.stdout.getReader()
const url = new TextDecoder().decode((await reader.read()).value).trim()

const entryFor = (target: Target): ModelEntry => ({
  ref: `bench/${target.protocol}`,
  id: "bench-model",
  provider: { name: "bench", protocol: target.protocol, baseURL: target.baseURL(url), apiKeyEnv: [], headers: {} },
  capabilities: { contextWindow: 1_000_000, maxOutputTokens: 32_000, imageInput: false, reasoning: false },
  listed: true
})

/** One client per target, as a session keeps one per model (the bare SDK side caches its client too). */
const throughCrystal = async (entry: ModelEntry, client: ModelClientShape): Promise<number> => {
  const request = { system: "", items: [{ _tag: "user" as const, id: "u", text: "go" }], tools: [], model: entry }
  return Effect.runPromise(
    client.stream(request).pipe(Stream.runFold(0, (characters, event) => (event.type === "text_delta" ? characters + event.text.length : characters)))
  )
}

const time = async (work: () => Promise<number>): Promise<{ readonly ms: number; readonly characters: number }> => {
  const started = performance.now()
  const characters = await work()
  return { ms: performance.now() - started, characters }
}

console.log(`stream overhead: ${tokens} tokens per response, ${runs} interleaved runs each (medians)`)
for (const target of targets) {
  const entry = entryFor(target)
  const { consumeWithSdk } = await target.sdk()
  const bare = () => consumeWithSdk(target.baseURL(url), "bench-model", "go")
  const client = await Effect.runPromise(makeModelClient(entry, {}))
  const crystal = () => throughCrystal(entry, client)
  await bare()
  await crystal()
  const bareTimes: Array<number> = []
  const crystalTimes: Array<number> = []
  for (let i = 0; i < runs; i++) {
    const b = await time(bare)
    const c = await time(crystal)
    if (b.characters !== c.characters) throw new Error(`${target.protocol}: the SDK saw ${b.characters} characters, Crystal ${c.characters}`)
    bareTimes.push(b.ms)
    crystalTimes.push(c.ms)
  }
  const b = median(bareTimes)
  const c = median(crystalTimes)
  console.log(`  ${target.protocol.padEnd(17)} bare SDK ${ms(b).padStart(9)}   Crystal ${ms(c).padStart(9)}   ${ratio(c, b)}   (${((c - b) / tokens * 1000).toFixed(2)} µs/token over)`)
}
server.kill()
fs.rmSync(path.dirname(replyFile), { recursive: true, force: true })
process.exit(0)
