/** redactingText: a model's text, delta by delta, with the secrets replaced across the deltas. */
import { describe, expect, it } from "vitest"
import { REDACTED, redactText } from "../../../src/secrets/redact.ts"
import { noSecrets, Secrets } from "../../../src/secrets/secrets.ts"
import { redactingText } from "../../../src/secrets/text-stream.ts"

const key = "sk-test-4f9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c"
const other = "ghp_0123456789abcdefABCDEF0123456789"
const secrets = new Secrets([key, other])

/** What a renderer shows of `pieces`, each push's output kept apart. */
const shown = (pieces: ReadonlyArray<string>, known: Secrets = secrets): Array<string> => {
  const stream = redactingText(known)
  return [...pieces.map(stream.push), stream.end()]
}

/** A small deterministic generator, so a failing split can be replayed. */
const splits = (text: string, seed: number): Array<string> => {
  let state = seed
  const next = () => {
    state = (state * 1103515245 + 12345) % 2147483648
    return state
  }
  const pieces: Array<string> = []
  for (let at = 0; at < text.length; ) {
    const size = 1 + (next() % 9)
    pieces.push(text.slice(at, at + size))
    at += size
  }
  return pieces
}

describe("redactingText", () => {
  it("passes pieces on unchanged when no secret is known", () => {
    expect(shown(["a ", key.slice(0, 5), key.slice(5)], noSecrets)).toEqual(["a ", key.slice(0, 5), key.slice(5), ""])
  })

  it("replaces a key split between two deltas at every position, and shows none of it first", () => {
    for (let cut = 1; cut < key.length; cut++) {
      const out = shown([`the key is ${key.slice(0, cut)}`, `${key.slice(cut)} and more`])
      expect(out.join("")).toBe(`the key is ${REDACTED} and more`)
      expect(out[0]).toBe("the key is ")
    }
  })

  it("replaces a key streamed one character at a time", () => {
    expect(shown([..."say ", ...key, ..." now"]).join("")).toBe(`say ${REDACTED} now`)
  })

  it("releases what only looked like a key's beginning with the next delta, unchanged", () => {
    expect(shown(["ask sk-", "tests pass."])).toEqual(["ask ", "sk-tests pass.", ""])
    expect(shown(["ends with sk-te"])).toEqual(["ends with ", "sk-te"])
  })

  it("holds back only what could begin a secret: other text is shown at once", () => {
    expect(shown(["Hello, ", "world.\n"])).toEqual(["Hello, ", "world.\n", ""])
  })

  it("shows the same text as the stored message, however the deltas fall", () => {
    const text = `first ${key} then ${other}, a cut ${key.slice(0, 20)} and ${key}${other} sk-t done`
    for (let seed = 1; seed <= 200; seed++) {
      expect(shown(splits(text, seed)).join("")).toBe(redactText(secrets, text))
    }
  })
})
