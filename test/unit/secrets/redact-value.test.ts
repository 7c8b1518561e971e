/** redactValue: every string of a JSON-like value, keys included; kept properties and unchanged parts left as they are. */
import { describe, expect, it } from "vitest"
import { REDACTED } from "../../../src/secrets/redact.ts"
import { redactValue } from "../../../src/secrets/redact-value.ts"
import { noSecrets, Secrets } from "../../../src/secrets/secrets.ts"

const key = "sk-test-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"
const secrets = new Secrets([key])

describe("redactValue", () => {
  it("redacts strings at any depth, in arrays and in property names", () => {
    const value = { command: `curl -H 'x-api-key: ${key}'`, env: { [key]: 1, list: ["a", `b${key}`] }, count: 3, flag: true, none: null }
    expect(redactValue(secrets, value)).toEqual({
      command: `curl -H 'x-api-key: ${REDACTED}'`,
      env: { [REDACTED]: 1, list: ["a", `b${REDACTED}`] },
      count: 3,
      flag: true,
      none: null
    })
    expect(redactValue(secrets, key)).toBe(REDACTED)
  })

  it("returns the same objects where nothing was redacted", () => {
    const untouched = { deep: { list: [1, "two"] } }
    const value = { untouched, changed: { text: key } }
    const redacted = redactValue(secrets, value)
    expect(redacted).not.toBe(value)
    expect(redacted.untouched).toBe(untouched)
    expect(redactValue(secrets, untouched)).toBe(untouched)
    expect(redactValue(noSecrets, value)).toBe(value)
  })

  it("leaves the values under kept property names exactly as they are", () => {
    const opaque = { signature: key, nested: [key] }
    const value = { text: key, opaque }
    const redacted = redactValue(secrets, value, { keep: new Set(["opaque"]) })
    expect(redacted).toEqual({ text: REDACTED, opaque })
    expect(redacted.opaque).toBe(opaque)
  })
})
