/**
 * A server's call timers on a fake clock: what restarts a call's toolTimeoutSeconds, what holds
 * it, and that a held call is never cancelled however long the operator takes.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from "vitest"
import { makeServerCalls } from "../../../src/mcp/call-timers.ts"

beforeEach(() => {
  vi.useFakeTimers({ toFake: ["setTimeout", "clearTimeout", "performance"] })
})
afterEach(() => {
  vi.useRealTimers()
})

const expired = () => {
  const names: Array<string> = []
  return { names, on: (name: string) => () => void names.push(name) }
}

describe("a server's call timers", () => {
  it("cancel a call that shows no sign of life for its time, and only that call", () => {
    const calls = makeServerCalls()
    const log = expired()
    calls.start(1000, log.on("a"))
    vi.advanceTimersByTime(500)
    calls.start(1000, log.on("b"))
    vi.advanceTimersByTime(499)
    expect(log.names).toEqual([])
    vi.advanceTimersByTime(1)
    expect(log.names).toEqual(["a"])
    vi.advanceTimersByTime(500)
    expect(log.names).toEqual(["a", "b"])
    vi.advanceTimersByTime(10_000)
    expect(log.names).toEqual(["a", "b"])
  })

  it("restart a call's time on every sign of life, and forget a stopped call", () => {
    const calls = makeServerCalls()
    const log = expired()
    const a = calls.start(1000, log.on("a"))
    const b = calls.start(1000, log.on("b"))
    vi.advanceTimersByTime(900)
    b.stop()
    for (let i = 0; i < 10; i++) {
      a.alive()
      vi.advanceTimersByTime(900)
    }
    a.alive()
    expect(log.names).toEqual([])
    vi.advanceTimersByTime(999)
    expect(log.names).toEqual([])
    vi.advanceTimersByTime(1)
    expect(log.names).toEqual(["a"])
    expect(vi.getTimerCount()).toBe(0)
  })

  it("hold every call while the operator answers, then give each its full time again", async () => {
    const calls = makeServerCalls()
    const log = expired()
    calls.start(1000, log.on("running"))
    vi.advanceTimersByTime(900)
    let answer: (value: string) => void = () => {}
    const asked = calls.whileOperatorAnswers(() => new Promise<string>((resolve) => (answer = resolve)))
    // A call that starts while the dialog is open waits too.
    calls.start(1000, log.on("started meanwhile"))
    vi.advanceTimersByTime(60_000)
    expect(log.names).toEqual([])
    answer("yes")
    expect(await asked).toBe("yes")
    vi.advanceTimersByTime(999)
    expect(log.names).toEqual([])
    vi.advanceTimersByTime(1)
    expect(log.names.sort()).toEqual(["running", "started meanwhile"])
  })

  it("nest holds: the calls count again only after the last release; a release twice counts once", () => {
    const calls = makeServerCalls()
    const log = expired()
    calls.start(1000, log.on("a"))
    const first = calls.hold()
    const second = calls.hold()
    first()
    first()
    vi.advanceTimersByTime(5000)
    expect(log.names).toEqual([])
    second()
    vi.advanceTimersByTime(1000)
    expect(log.names).toEqual(["a"])
  })

  it("release the hold when the answer fails too", async () => {
    const calls = makeServerCalls()
    const log = expired()
    calls.start(1000, log.on("a"))
    await expect(calls.whileOperatorAnswers(() => Promise.reject(new Error("dialog failed")))).rejects.toThrow("dialog failed")
    vi.advanceTimersByTime(1000)
    expect(log.names).toEqual(["a"])
  })

  it("keep a time longer than a timer can hold", () => {
    const calls = makeServerCalls()
    const log = expired()
    const day = 86_400_000
    calls.start(30 * day, log.on("a"))
    vi.advanceTimersByTime(29 * day)
    expect(log.names).toEqual([])
    vi.advanceTimersByTime(day)
    expect(log.names).toEqual(["a"])
  })
})
