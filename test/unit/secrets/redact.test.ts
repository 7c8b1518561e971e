import { describe, expect, it } from "vitest"
import { holdsSecret, REDACTED, redactingSink, redactJson, redactText } from "../../../src/secrets/redact.ts"
import { noSecrets, Secrets } from "../../../src/secrets/secrets.ts"

const key = "sk-test-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"
const other = "ghp_0123456789abcdefABCDEF0123456789"

const streamed = (secrets: Secrets, chunks: ReadonlyArray<string>): string => {
  const out: Array<Buffer> = []
  const sink = redactingSink(secrets, (chunk) => out.push(chunk))
  for (const chunk of chunks) sink.write(Buffer.from(chunk))
  sink.flush()
  return Buffer.concat(out).toString("utf8")
}

describe("redactText", () => {
  it("leaves text alone when no secret is known", () => {
    expect(redactText(noSecrets, `OPENAI_API_KEY=${key}`)).toBe(`OPENAI_API_KEY=${key}`)
  })

  it("replaces every occurrence of every secret", () => {
    const secrets = new Secrets([key, other])
    expect(redactText(secrets, `a=${key}\0b=${other}\nagain ${key}${key}`)).toBe(`a=${REDACTED}\0b=${REDACTED}\nagain ${REDACTED}${REDACTED}`)
  })

  it("replaces a key cut at its end (a capped line) and one cut at its start (a log read from an offset)", () => {
    const secrets = new Secrets([key])
    expect(redactText(secrets, `KEY=${key.slice(0, 20)}… [+900 chars]`)).toBe(`KEY=${REDACTED}… [+900 chars]`)
    expect(redactText(secrets, `${key.slice(15)} rest`)).toBe(`${REDACTED} rest`)
    expect(redactText(secrets, `x${key.slice(0, 11)}y`)).toBe(`x${key.slice(0, 11)}y`)
  })

  it("where a cap cut the text, a shorter piece of a key goes too; the same piece elsewhere stays", () => {
    const secrets = new Secrets([key])
    expect(redactText(secrets, `xxx${key.slice(0, 8)}… [+50 chars]`)).toBe(`xxx${REDACTED}… [+50 chars]`)
    expect(redactText(secrets, `tail ${key.slice(0, 7)}`)).toBe(`tail ${REDACTED}`)
    expect(redactText(secrets, `[… 900 bytes of output dropped here …]\n${key.slice(-9)} and on`)).toBe(`[… 900 bytes of output dropped here …]\n${REDACTED} and on`)
    expect(redactText(secrets, `${key.slice(-7)} first`)).toBe(`${REDACTED} first`)
    expect(redactText(secrets, `mid ${key.slice(0, 8)} text`)).toBe(`mid ${key.slice(0, 8)} text`)
  })

  it("prefers the longer of two secrets that contain one another", () => {
    const secrets = new Secrets(["abcdefgh", "abcdefgh-and-more"])
    expect(redactText(secrets, "abcdefgh-and-more abcdefgh")).toBe(`${REDACTED} ${REDACTED}`)
  })
})

describe("holdsSecret (tool names)", () => {
  it.each([
    ["the whole key", key, true],
    ["the key inside a name", `mcp__probe__${key}`, true],
    ["a 12-character piece from the middle", `t_${key.slice(9, 21)}_x`, true],
    ["a 12-character piece at the end", `tool_${key.slice(-12)}`, true],
    ["an 11-character piece", `tool_${key.slice(9, 20)}`, false],
    ["a short secret whole", "name_pw-1234567", true],
    ["part of a short secret", "name_pw-123456", false],
    ["an ordinary name", "read_file", false]
  ])("%s: %s", (_, name, held) => {
    const secrets = new Secrets([key, "pw-1234567"])
    expect(holdsSecret(secrets, name)).toBe(held)
  })
})

describe("redactJson (tool schemas)", () => {
  it("redacts every string of the value; a secret across JSON syntax gives the fallback", () => {
    const secrets = new Secrets([key, 'b"]}'])
    const schema: Record<string, unknown> = { type: "object", properties: { token: { type: "string", description: `defaults to ${key}` } } }
    expect(redactJson(secrets, schema, {})).toEqual({ type: "object", properties: { token: { type: "string", description: `defaults to ${REDACTED}` } } })
    const clean: Record<string, unknown> = { type: "object" }
    expect(redactJson(secrets, clean, {})).toBe(clean)
    expect(redactJson<Record<string, unknown>>(secrets, { enum: ["a", "b"] }, { type: "object" })).toEqual({ type: "object" })
  })
})

describe("redactingSink", () => {
  it("redacts a key split over chunks, byte by byte too", () => {
    const secrets = new Secrets([key])
    const text = `before ${key} after\n`
    expect(streamed(secrets, [text.slice(0, 15), text.slice(15)])).toBe(`before ${REDACTED} after\n`)
    expect(streamed(secrets, [...text])).toBe(`before ${REDACTED} after\n`)
  })

  it("passes every chunk through untouched when there is no secret", () => {
    const chunk = Buffer.from(`x ${key.slice(0, 5)}`)
    const out: Array<Buffer> = []
    const sink = redactingSink(noSecrets, (data) => out.push(data))
    sink.write(chunk)
    sink.flush()
    expect(out).toEqual([chunk])
  })

  it("passes through at once what cannot start a key, and flushes a held-back partial at the end", () => {
    const secrets = new Secrets([key])
    const out: Array<string> = []
    const sink = redactingSink(secrets, (chunk) => out.push(chunk.toString()))
    sink.write(Buffer.from("listening on 3000\n"))
    expect(out).toEqual(["listening on 3000\n"])
    sink.write(Buffer.from("x sk-te"))
    expect(out.join("")).toBe("listening on 3000\nx ")
    sink.flush()
    expect(out.join("")).toBe("listening on 3000\nx sk-te")
  })
})
