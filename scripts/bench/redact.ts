/// <reference types="bun" />
/**
 * Redaction's cost on a big output, against baselines measured in the same run, interleaved:
 *   - text: redactText over an 8 MiB tool output holding a few keys (and cut pieces of one), with
 *     6 secrets, vs the bare `split(secret).join("[redacted]")` of every secret (the least any
 *     exact replacement costs); and the same text through the session's Redactor (its Ref read and
 *     span included), as the executor calls it.
 *   - stream: 32 MiB of shell output in 64 KiB chunks through redactingSink, vs a bare search of
 *     each chunk for every secret's bytes (the least any exact stream redaction costs).
 *   - per call: the Redactor's `redact` on a 200-byte result inside a fiber (as the executor calls
 *     it) vs redactText on the same value: what the service adds to every tool call.
 *   - per delta (issue 30): a 20,000-delta answer through the turn's shown stream (turn-stream.ts:
 *     redactingText, in Effect, into a renderer that keeps the text) vs the same deltas handed
 *     straight to that renderer, as the turn did before; and redactingText alone.
 *   - per save (issue 30): the session document redaction (redact-document.ts) of a 2,000-item
 *     session, the first save (every item) and the next (one item more, the rest remembered), vs
 *     the JSON.stringify every save does anyway.
 * Usage: bun scripts/bench/redact.ts [--runs N]
 */
import * as Effect from "effect/Effect"
import { shownStream } from "../../src/engine/turn-stream.ts"
import type { ModelEvent } from "../../src/providers/model-client.ts"
import { REDACTED, redactingSink, redactText } from "../../src/secrets/redact.ts"
import { Redactor } from "../../src/secrets/redactor.ts"
import { Secrets } from "../../src/secrets/secrets.ts"
import { redactingText } from "../../src/secrets/text-stream.ts"
import type { SessionDocument } from "../../src/session/document.ts"
import type { TranscriptItem } from "../../src/session/items.ts"
import { makeDocumentRedaction } from "../../src/session/redact-document.ts"
import { flag, median, ms, ratio } from "./measure.ts"

const runs = flag("--runs", 15)

const values: readonly [string, string, string, ...Array<string>] = [
  "sk-proj-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a",
  "sk-ant-api03-0123456789abcdefABCDEF0123456789abcdef",
  "ghp_0123456789abcdefABCDEF0123456789",
  "AIzaSyD-0123456789abcdefghijklmnopqrstu",
  "mcp-token-5b20e9c4a7f1d386",
  "hunter2-password-value"
]
const secrets = new Secrets(values)
const redactor = Effect.runSync(Redactor.make(values))

const line = (i: number): string => `2024-05-01T12:00:${String(i % 60).padStart(2, "0")}Z info request ${i} served in ${i % 97} ms from /api/v1/items/${i}\n`
const makeText = (bytes: number): string => {
  const parts: Array<string> = []
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const next = i % 20_000 === 7 ? `OPENAI_API_KEY=${values[0]} and ${values[2].slice(0, 20)}… [+900 chars]\n` : line(i)
    parts.push(next)
    size += next.length
  }
  return parts.join("")
}
const text = makeText(8 * 1024 * 1024)
const chunks = (() => {
  const all = Buffer.from(makeText(32 * 1024 * 1024))
  const out: Array<Buffer> = []
  for (let at = 0; at < all.length; at += 64 * 1024) out.push(all.subarray(at, at + 64 * 1024))
  return out
})()
const small = `exit 0\n${line(3)}${line(4)}`.slice(0, 200)

const bareReplace = (input: string): string => {
  let result = input
  for (const secret of secrets.values) if (result.includes(secret)) result = result.split(secret).join(REDACTED)
  return result
}
const time = (run: () => unknown): number => {
  const started = performance.now()
  run()
  return performance.now() - started
}
const consume = (chunk: Buffer): void => {
  if (chunk.length < 0) throw new Error("unreachable")
}
const stream = (redacting: boolean) => () => {
  if (!redacting) {
    for (const chunk of chunks) for (const secret of secrets.buffers) consume(chunk.indexOf(secret) < 0 ? chunk : secret)
    return
  }
  const sink = redactingSink(secrets, consume)
  for (const chunk of chunks) sink.write(chunk)
  sink.flush()
}
const inFiber = Effect.gen(function* () {
  for (let i = 0; i < 10_000; i++) yield* redactor.redact(small)
})
const perCall = (viaService: boolean) => () => {
  if (viaService) return Effect.runSync(inFiber)
  for (let i = 0; i < 10_000; i++) redactText(secrets, small)
}

/** A model's answer as stream.ts scripts it, one word a delta, with a key in it now and then. */
const deltaCount = 20_000
const deltas: ReadonlyArray<ModelEvent> = Array.from({ length: deltaCount }, (_, i) => ({
  type: "text_delta" as const,
  text: i % 5000 === 7 ? ` ${values[0]}` : i % 12 === 11 ? " end.\n" : ` word${i % 7}`
}))
/** What a renderer minimally does with a delta: keeps it. */
const answer = () => {
  const parts: Array<string> = []
  return { parts, textDelta: (piece: string) => Effect.sync(() => void parts.push(piece)), reasoningDelta: () => Effect.void }
}
const direct = () => {
  const view = answer()
  Effect.runSync(Effect.forEach(deltas, (event) => (event.type === "text_delta" ? view.textDelta(event.text) : Effect.void), { discard: true }))
  return view.parts
}
const shown = () => {
  const view = answer()
  const stream = shownStream(view, redactor.secrets)
  Effect.runSync(Effect.zipRight(Effect.forEach(deltas, stream.show, { discard: true }), stream.end))
  return view.parts
}
const textOnly = () => {
  const stream = redactingText(secrets)
  for (const event of deltas) if (event.type === "text_delta") stream.push(event.text)
  stream.end()
}

/** A long session: turns of a question, an answer with a call, and a 1 KiB result. */
const items: Array<TranscriptItem> = Array.from({ length: 2000 }, (_, i): TranscriptItem => {
  if (i % 3 === 0) return { _tag: "user", id: `u${i}`, text: `question ${i} about /api/v1/items/${i}` }
  if (i % 3 === 1) {
    return { _tag: "assistant", id: `a${i}`, model: "m", text: `Looking at item ${i}.`, toolCalls: [{ id: `c${i}`, name: "bash", arguments: { command: `curl /api/v1/items/${i}` } }] }
  }
  return { _tag: "tool_result", id: `r${i}`, callId: `c${i - 1}`, name: "bash", text: makeText(1024), isError: false }
})
const session: SessionDocument = {
  version: 1, id: "bench", createdAt: "", updatedAt: "", workspace: "/w", model: "m", mode: "work", approval: "default",
  system: "You are a coding agent.".repeat(400), items, usage: { inputTokens: 0, outputTokens: 0 }
}
const oneMore: SessionDocument = { ...session, items: [...items, { _tag: "note", id: "n", text: "one more" }] }
const saves = () => {
  const redaction = makeDocumentRedaction()
  const first = time(() => redaction(secrets, session))
  const next = time(() => redaction(secrets, oneMore))
  return { first, next }
}

if (redactText(secrets, text).includes(values[0])) throw new Error("the benchmark's text was not redacted")
if (shown().join("").includes(values[0]) || direct().join("") !== deltas.map((event) => (event.type === "text_delta" ? event.text : "")).join("")) {
  throw new Error("the benchmark's deltas were not redacted")
}
const samples = {
  bare: [] as Array<number>, text: [] as Array<number>, service: [] as Array<number>, pass: [] as Array<number>, sink: [] as Array<number>,
  call: [] as Array<number>, fn: [] as Array<number>, direct: [] as Array<number>, shown: [] as Array<number>, textOnly: [] as Array<number>,
  stringify: [] as Array<number>, firstSave: [] as Array<number>, nextSave: [] as Array<number>
}
for (let run = 0; run < runs; run++) {
  samples.bare.push(time(() => bareReplace(text)))
  samples.text.push(time(() => redactText(secrets, text)))
  samples.service.push(time(() => Effect.runSync(redactor.redact(text))))
  samples.pass.push(time(stream(false)))
  samples.sink.push(time(stream(true)))
  samples.fn.push(time(perCall(false)))
  samples.call.push(time(perCall(true)))
  samples.direct.push(time(direct))
  samples.shown.push(time(shown))
  samples.textOnly.push(time(textOnly))
  samples.stringify.push(time(() => JSON.stringify(session)))
  const { first, next } = saves()
  samples.firstSave.push(first)
  samples.nextSave.push(next)
}
const m = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)])) as Record<keyof typeof samples, number>
console.log(`redaction, ${runs} runs, medians (6 secrets)`)
console.log(`  8 MiB text   bare split/join ${ms(m.bare)}   redactText ${ms(m.text)} (${ratio(m.text, m.bare)})   via Redactor ${ms(m.service)} (${ratio(m.service, m.bare)})`)
console.log(`  32 MiB stream  bare search ${ms(m.pass)}   redactingSink ${ms(m.sink)} (${ratio(m.sink, m.pass)}; ${(32 / (m.sink / 1000)).toFixed(0)} MiB/s)`)
console.log(`  10k small results  redactText ${ms(m.fn)}   Redactor.redact ${ms(m.call)} (${ratio(m.call, m.fn)}; +${(((m.call - m.fn) / 10_000) * 1000).toFixed(2)} µs a call)`)
const perDelta = (value: number): string => `${((value / deltaCount) * 1000).toFixed(2)} µs a delta`
console.log(
  `  ${deltaCount} deltas  straight to the renderer ${ms(m.direct)} (${perDelta(m.direct)})   through the shown stream ${ms(m.shown)} (${ratio(m.shown, m.direct)}; +${(((m.shown - m.direct) / deltaCount) * 1000).toFixed(2)} µs a delta)   redactingText alone ${ms(m.textOnly)} (${perDelta(m.textOnly)})`
)
console.log(`  2,000-item session  JSON.stringify ${ms(m.stringify)}   redaction: first save ${ms(m.firstSave)} (${ratio(m.firstSave, m.stringify)})   next save ${ms(m.nextSave)} (${ratio(m.nextSave, m.stringify)})`)
