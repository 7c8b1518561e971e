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
 * Usage: bun scripts/bench/redact.ts [--runs N]
 */
import * as Effect from "effect/Effect"
import { REDACTED, redactingSink, redactText } from "../../src/secrets/redact.ts"
import { Redactor } from "../../src/secrets/redactor.ts"
import { Secrets } from "../../src/secrets/secrets.ts"
import { median, ms, ratio } from "./measure.ts"

const flag = (name: string, fallback: number): number => {
  const at = process.argv.indexOf(name)
  return at > 0 ? Number(process.argv[at + 1]) : fallback
}
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

if (redactText(secrets, text).includes(values[0])) throw new Error("the benchmark's text was not redacted")
const samples = { bare: [] as Array<number>, text: [] as Array<number>, service: [] as Array<number>, pass: [] as Array<number>, sink: [] as Array<number>, call: [] as Array<number>, fn: [] as Array<number> }
for (let run = 0; run < runs; run++) {
  samples.bare.push(time(() => bareReplace(text)))
  samples.text.push(time(() => redactText(secrets, text)))
  samples.service.push(time(() => Effect.runSync(redactor.redact(text))))
  samples.pass.push(time(stream(false)))
  samples.sink.push(time(stream(true)))
  samples.fn.push(time(perCall(false)))
  samples.call.push(time(perCall(true)))
}
const m = Object.fromEntries(Object.entries(samples).map(([name, values]) => [name, median(values)])) as Record<keyof typeof samples, number>
console.log(`redaction, ${runs} runs, medians (6 secrets)`)
console.log(`  8 MiB text   bare split/join ${ms(m.bare)}   redactText ${ms(m.text)} (${ratio(m.text, m.bare)})   via Redactor ${ms(m.service)} (${ratio(m.service, m.bare)})`)
console.log(`  32 MiB stream  bare search ${ms(m.pass)}   redactingSink ${ms(m.sink)} (${ratio(m.sink, m.pass)}; ${(32 / (m.sink / 1000)).toFixed(0)} MiB/s)`)
console.log(`  10k small results  redactText ${ms(m.fn)}   Redactor.redact ${ms(m.call)} (${ratio(m.call, m.fn)}; +${(((m.call - m.fn) / 10_000) * 1000).toFixed(2)} µs a call)`)
