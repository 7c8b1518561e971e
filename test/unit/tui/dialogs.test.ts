/** The question dialog on a scripted keyboard: a question's initial labels are what Enter alone picks. */
import * as Effect from "effect/Effect"
import { PassThrough } from "node:stream"
import { describe, expect, it } from "vitest"
import { plainPalette } from "../../../src/terminal/colors.ts"
import type { Question } from "../../../src/tools/questions.ts"
import { makeDialogs } from "../../../src/tui/dialogs.ts"
import { hostile, hostileShown } from "../../support/hostile-text.ts"

const down = "\x1b[B"
const up = "\x1b[A"

/** Asks `questions`; each time the screen shows the next of `screens`, types its keys (Enter alone by default). */
const enterThrough = async (questions: ReadonlyArray<Question>, screens: ReadonlyArray<RegExp | readonly [RegExp, string]>, everything: Array<string> = []) =>
  typeThrough((dialogs) => dialogs.askQuestions(questions), screens, everything)

/** Opens a dialog; each time the screen shows the next of `screens`, types its keys. `everything` gets all it drew. */
const typeThrough = async <A>(open: (dialogs: ReturnType<typeof makeDialogs>) => Effect.Effect<A>, screens: ReadonlyArray<RegExp | readonly [RegExp, string]>, everything: Array<string> = []) => {
  const input = new PassThrough()
  const output = new PassThrough()
  let screen = ""
  output.on("data", (chunk: Buffer) => {
    screen += chunk.toString()
    everything.push(chunk.toString())
  })
  const host = { takeOver: () => {}, giveBack: () => {}, commit: () => {}, columns: () => 80, output, input, interruptTurn: () => {} }
  const outcome = Effect.runPromise(open(makeDialogs(host, plainPalette)))
  for (const step of screens) {
    const [expected, keys] = step instanceof RegExp ? [step, "\r"] : step
    const deadline = Date.now() + 5_000
    while (!expected.test(screen)) {
      if (Date.now() > deadline) throw new Error(`no ${expected} on the screen:\n${screen}`)
      await new Promise((resolve) => setTimeout(resolve, 10))
    }
    screen = ""
    input.write(keys)
  }
  return outcome
}

const question = (header: string, labels: ReadonlyArray<string>, more: Partial<Question> = {}): Question => ({
  header,
  question: `${header}?`,
  options: labels.map((label) => ({ label, description: "" })),
  multiSelect: false,
  allowCustom: false,
  ...more
})

describe("the question dialog", () => {
  it("starts a single choice on its initial label, and on the first option without one", async () => {
    expect(await enterThrough([question("status", ["active", "inactive", "pending"], { initial: ["pending"] })], [/status\?/])).toEqual({
      _tag: "Answered",
      answers: [{ selected: ["pending"] }]
    })
    expect(await enterThrough([question("status", ["active", "inactive"])], [/status\?/])).toEqual({ _tag: "Answered", answers: [{ selected: ["active"] }] })
  })

  it("starts a multi-select with its initial labels ticked; an initial label that is not an option is ignored; answers in the order shown", async () => {
    const outcome = await enterThrough([question("tags", ["a", "b", "c"], { multiSelect: true, initial: ["c", "b", "z"] })], [/tags\?/, /Submit these answers\?/])
    expect(outcome).toEqual({ _tag: "Answered", answers: [{ selected: ["b", "c"] }] })
    const ticked = await enterThrough([question("tags", ["a", "b", "c"], { multiSelect: true })], [[/tags\?/, `${down}${down} ${up}${up} \r`], /Submit these answers\?/])
    expect(ticked).toEqual({ _tag: "Answered", answers: [{ selected: ["a", "c"] }] })
  })
})

describe("text from outside in a dialog", () => {
  /** What could drive a terminal: OSC (title, clipboard), BEL, a C1 CSI; clack's own CSI sequences are allowed. */
  const driving = /\x1b\]|\x07|\x9b|\x1b\[2J/

  it("an elicitation's question, header and options are drawn as symbols, and the answer is the option's own value", async () => {
    const drawn: Array<string> = []
    const outcome = await enterThrough(
      [question(`probe: ${hostile}`, [`yes ${hostile}`, "no"], { question: `Message ${hostile}`, options: [{ label: `yes ${hostile}`, description: `hint ${hostile}` }, { label: "no", description: "" }] })],
      [/Message/],
      drawn
    )
    expect(outcome).toEqual({ _tag: "Answered", answers: [{ selected: [`yes ${hostile}`] }] })
    const screen = drawn.join("")
    expect(screen).not.toMatch(driving)
    // Clack wraps at the width: each text is whole on a row of its own.
    expect(screen).toContain(`probe: ${hostileShown}`)
    expect(screen).toContain(`yes ${hostileShown}`)
    expect(screen).toContain(`│  ${hostileShown}`)
  })

  it("a confirm question (a trust question naming a workspace's commands) and the session picker's titles too", async () => {
    const drawn: Array<string> = []
    expect(await typeThrough((dialogs) => dialogs.confirm(`Trust tools ${hostile}?`, false), [/Trust tools/], drawn)).toBe(false)
    const picked = await typeThrough(
      (dialogs) => dialogs.pickSession([{ id: "s1", title: `title ${hostile}`, updatedAt: "2026-01-01T00:00:00.000Z", messageCount: 2 } as never]),
      [/Resume which session/],
      drawn
    )
    expect(picked).toBe("s1")
    const screen = drawn.join("")
    expect(screen).not.toMatch(driving)
    expect(screen).toMatch(/Trust tools/)
    expect(screen).toContain(hostileShown)
    expect(screen).toContain(`title ${hostileShown}`)
  })
  it("offers web_fetch's session grant as its host, and answers AllowSession when chosen", async () => {
    const request = {
      toolName: "web_fetch",
      arguments: { url: "https://docs.example.com/guide" },
      classification: { risk: "medium", authority: "read", scope: "outside", summary: "fetch https://docs.example.com/guide", paths: [], grantKey: "web_fetch:docs.example.com" },
      mode: "default"
    } as const
    const drawn: Array<string> = []
    const answer = await typeThrough((dialogs) => dialogs.approve(request), [[/Allow web_fetch\?/, `${down}\r`]], drawn)
    expect(answer).toEqual({ _tag: "AllowSession" })
    expect(drawn.join("")).toMatch(/Allow this host for the session/)
    expect(drawn.join("")).toContain("every web_fetch from docs.example.com")
  })
})
