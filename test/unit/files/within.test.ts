import { describe, expect, it } from "vitest"
import { isStrictlyWithin, isWithin } from "../../../src/files/within.ts"

describe("isWithin and isStrictlyWithin", () => {
  it.each([
    ["/work/ws", "/work/ws", true, false],
    ["/work/ws", "/work/ws/a/b.txt", true, true],
    ["/work/ws", "/work/ws-other/a", false, false],
    ["/work/ws", "/work", false, false],
    ["/", "/etc/passwd", true, true],
    ["/work/ws/", "/work/ws/a", true, true]
  ])("%s holds %s: %s, strictly %s", (root, candidate, within, strictly) => {
    expect(isWithin(root, candidate)).toBe(within)
    expect(isStrictlyWithin(root, candidate)).toBe(strictly)
  })
})
