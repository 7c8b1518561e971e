import { afterEach, describe, expect, it } from "vitest"
import { addSecrets, installSecrets, REDACTED, redactingSink, redactText } from "../../../src/session/redact.ts"

const key = "sk-test-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"
const other = "ghp_0123456789abcdefABCDEF0123456789"

afterEach(() => installSecrets([]))

const streamed = (chunks: ReadonlyArray<string>): string => {
  const out: Array<Buffer> = []
  const sink = redactingSink((chunk) => out.push(chunk))
  for (const chunk of chunks) sink.write(Buffer.from(chunk))
  sink.flush()
  return Buffer.concat(out).toString("utf8")
}

describe("redactText", () => {
  it("leaves text alone when no secret is known", () => {
    expect(redactText(`OPENAI_API_KEY=${key}`)).toBe(`OPENAI_API_KEY=${key}`)
  })

  it("addSecrets adds to the installed values, deferred or not; the next installSecrets replaces them all", () => {
    installSecrets(() => [key])
    addSecrets([other, ""])
    expect(redactText(`${key} ${other}`)).toBe(`${REDACTED} ${REDACTED}`)
    addSecrets(["mcp-token-value-1"])
    expect(redactText(`${key} ${other} mcp-token-value-1`)).toBe(`${REDACTED} ${REDACTED} ${REDACTED}`)
    installSecrets([key])
    expect(redactText(`${key} ${other}`)).toBe(`${REDACTED} ${other}`)
  })

  it("replaces every occurrence of every secret", () => {
    installSecrets([key, other])
    expect(redactText(`a=${key}\0b=${other}\nagain ${key}${key}`)).toBe(`a=${REDACTED}\0b=${REDACTED}\nagain ${REDACTED}${REDACTED}`)
  })

  it("replaces a key cut at its end (a capped line) and one cut at its start (a log read from an offset)", () => {
    installSecrets([key])
    expect(redactText(`KEY=${key.slice(0, 20)}… [+900 chars]`)).toBe(`KEY=${REDACTED}… [+900 chars]`)
    expect(redactText(`${key.slice(15)} rest`)).toBe(`${REDACTED} rest`)
    expect(redactText(`x${key.slice(0, 11)}y`)).toBe(`x${key.slice(0, 11)}y`)
  })

  it("where a cap cut the text, a shorter piece of a key goes too; the same piece elsewhere stays", () => {
    installSecrets([key])
    expect(redactText(`xxx${key.slice(0, 8)}… [+50 chars]`)).toBe(`xxx${REDACTED}… [+50 chars]`)
    expect(redactText(`tail ${key.slice(0, 7)}`)).toBe(`tail ${REDACTED}`)
    expect(redactText(`[… 900 bytes of output dropped here …]\n${key.slice(-9)} and on`)).toBe(`[… 900 bytes of output dropped here …]\n${REDACTED} and on`)
    expect(redactText(`${key.slice(-7)} first`)).toBe(`${REDACTED} first`)
    expect(redactText(`mid ${key.slice(0, 8)} text`)).toBe(`mid ${key.slice(0, 8)} text`)
  })

  it("takes the secrets from a function on the first redaction", () => {
    let calls = 0
    installSecrets(() => {
      calls++
      return [key]
    })
    expect(calls).toBe(0)
    expect(redactText(key)).toBe(REDACTED)
    expect(redactText(key)).toBe(REDACTED)
    expect(calls).toBe(1)
  })

  it("prefers the longer of two secrets that contain one another", () => {
    installSecrets(["abcdefgh", "abcdefgh-and-more"])
    expect(redactText("abcdefgh-and-more abcdefgh")).toBe(`${REDACTED} ${REDACTED}`)
  })
})

describe("redactingSink", () => {
  it("redacts a key split over chunks, byte by byte too", () => {
    installSecrets([key])
    const text = `before ${key} after\n`
    expect(streamed([text.slice(0, 15), text.slice(15)])).toBe(`before ${REDACTED} after\n`)
    expect(streamed([...text])).toBe(`before ${REDACTED} after\n`)
  })

  it("passes through at once what cannot start a key, and flushes a held-back partial at the end", () => {
    installSecrets([key])
    const out: Array<string> = []
    const sink = redactingSink((chunk) => out.push(chunk.toString()))
    sink.write(Buffer.from("listening on 3000\n"))
    expect(out).toEqual(["listening on 3000\n"])
    sink.write(Buffer.from("x sk-te"))
    expect(out.join("")).toBe("listening on 3000\nx ")
    sink.flush()
    expect(out.join("")).toBe("listening on 3000\nx sk-te")
  })
})
