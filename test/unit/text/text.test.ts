import { describe, expect, it } from "vitest"
import { formatBytes, formatSizeOverLimit } from "../../../src/text/bytes.ts"
import { clip, oneLine } from "../../../src/text/clip.ts"
import { codeOf, messageOf } from "../../../src/text/error-text.ts"
import { plural } from "../../../src/text/plural.ts"

describe("messageOf and codeOf", () => {
  it("say an Error by its message and anything else as text", () => {
    expect(messageOf(new TypeError("bad thing"))).toBe("bad thing")
    expect(messageOf("plain words")).toBe("plain words")
    expect(messageOf(42)).toBe("42")
    expect(messageOf(undefined)).toBe("undefined")
  })

  it("prefer a system call's code, and fall back to the message", () => {
    expect(codeOf(Object.assign(new Error("no such file"), { code: "ENOENT" }))).toBe("ENOENT")
    expect(codeOf(new Error("no code here"))).toBe("no code here")
    expect(codeOf(null)).toBe("null")
    expect(codeOf({ code: 5 })).toBe("[object Object]")
  })
})

describe("formatSizeOverLimit", () => {
  it("prints both for people, or both in exact bytes when they would print alike", () => {
    expect(formatSizeOverLimit(33 * 1024 * 1024, 32 * 1024 * 1024)).toEqual({ size: "33 MiB", limit: "32 MiB" })
    expect(formatSizeOverLimit(32 * 1024 * 1024 + 1, 32 * 1024 * 1024)).toEqual({ size: "33554433 bytes", limit: "33554432 bytes" })
    expect(formatSizeOverLimit(1025, 1024)).toEqual({ size: "1025 bytes", limit: "1024 bytes" })
    expect(formatSizeOverLimit(2000, 1000)).toEqual({ size: "2 KiB", limit: "1000 bytes" })
  })
})

describe("formatBytes", () => {
  it.each([
    [0, "0 bytes"],
    [1, "1 byte"],
    [1023, "1023 bytes"],
    [1024, "1 KiB"],
    [1536, "1.5 KiB"],
    [256 * 1024, "256 KiB"],
    [1024 * 1024 - 1, "1 MiB"],
    [1024 * 1024, "1 MiB"],
    [3.8 * 1024 * 1024, "3.8 MiB"],
    [20 * 1024 * 1024, "20 MiB"],
    [5 * 1024 ** 3, "5 GiB"],
    [2 * 1024 ** 5, "2048 TiB"]
  ])("%d bytes read %s", (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text)
  })
})

describe("clip", () => {
  it("keeps text that fits and cuts the rest to the limit, ellipsis included", () => {
    expect(clip("short", 5)).toBe("short")
    expect(clip("longer text", 6)).toBe("longe…")
    expect(clip("longer text", 6)).toHaveLength(6)
  })

  it("never cuts a surrogate pair in half", () => {
    const clipped = clip("ab😀cd", 4)
    expect(clipped).toBe("ab…")
  })
})

describe("oneLine", () => {
  it("folds line breaks, tabs and control characters into single spaces", () => {
    expect(oneLine("  first\n\nsecond\tthird \u001b[31m red\r\n")).toBe("first second third [31m red")
  })
})

describe("plural", () => {
  it("counts with the right noun", () => {
    expect(plural(1, "line")).toBe("1 line")
    expect(plural(0, "line")).toBe("0 lines")
    expect(plural(2, "entry", "entries")).toBe("2 entries")
  })
})
