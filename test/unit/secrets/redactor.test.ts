/** The Redactor: one session's secrets in a Ref, deferred until first read, added to later. */
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { holdsSecret, REDACTED, redactingSink } from "../../../src/secrets/redact.ts"
import { Redactor } from "../../../src/secrets/redactor.ts"

const key = "sk-test-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"
const other = "ghp_0123456789abcdefABCDEF0123456789"

const run = <A>(effect: Effect.Effect<A>): A => Effect.runSync(effect)

describe("Redactor", () => {
  it("takes the secrets from a function on the first read, once", () => {
    let calls = 0
    const redactor = run(
      Redactor.make(() => {
        calls++
        return [key]
      })
    )
    expect(calls).toBe(0)
    expect(run(redactor.redact(key))).toBe(REDACTED)
    expect(run(redactor.redact(key))).toBe(REDACTED)
    expect(calls).toBe(1)
  })

  it("adds to the known values, deferred or not; empty values are ignored", () => {
    const deferred = run(Redactor.make(() => [key]))
    run(deferred.add([other, ""]))
    expect(run(deferred.redact(`${key} ${other} x`))).toBe(`${REDACTED} ${REDACTED} x`)
    run(deferred.add(["mcp-token-value-1"]))
    expect(run(deferred.redact(`${key} ${other} mcp-token-value-1`))).toBe(`${REDACTED} ${REDACTED} ${REDACTED}`)
    const known = run(Redactor.make([key]))
    run(known.add([other]))
    expect(run(known.redact(`${key} ${other}`))).toBe(`${REDACTED} ${REDACTED}`)
    expect(run(known.secrets).values).toEqual([key, other])
  })

  it("two sessions' redactors know only their own secrets", () => {
    const one = run(Redactor.make([key]))
    const two = run(Redactor.make(() => [other]))
    expect(run(one.redact(`${key} ${other}`))).toBe(`${REDACTED} ${other}`)
    expect(run(two.redact(`${key} ${other}`))).toBe(`${key} ${REDACTED}`)
  })

  it("a name check and a stream started after an add see the added value; one started before keeps what it was given", () => {
    const redactor = run(Redactor.make(() => [other]))
    expect(holdsSecret(run(redactor.secrets), `x${other.slice(3, 15)}`)).toBe(true)
    expect(holdsSecret(run(redactor.secrets), key.slice(0, 12))).toBe(false)
    const out: Array<string> = []
    const before = redactingSink(run(redactor.secrets), (chunk) => out.push(chunk.toString()))
    run(redactor.add([key]))
    expect(holdsSecret(run(redactor.secrets), key.slice(20, 32))).toBe(true)
    const after = redactingSink(run(redactor.secrets), (chunk) => out.push(chunk.toString()))
    after.write(Buffer.from(`a ${key}\n`))
    after.flush()
    before.write(Buffer.from(`b ${other}\n`))
    before.flush()
    expect(out.join("")).toBe(`a ${REDACTED}\nb ${REDACTED}\n`)
  })

  it("the layer gives the service by its tag", async () => {
    const text = await Effect.runPromise(Effect.flatMap(Redactor, (redactor) => redactor.redact(`k=${key}`)).pipe(Effect.provide(Redactor.layerTest([key]))))
    expect(text).toBe(`k=${REDACTED}`)
  })
})
