/** The question dialog on a scripted keyboard: a question's initial labels are what Enter alone picks. */
import * as Effect from "effect/Effect"
import { PassThrough } from "node:stream"
import { describe, expect, it } from "vitest"
import { plainPalette } from "../../../src/terminal/colors.ts"
import type { Question } from "../../../src/tools/questions.ts"
import { makeDialogs } from "../../../src/tui/dialogs.ts"

const down = "\x1b[B"
const up = "\x1b[A"

/** Asks `questions`; each time the screen shows the next of `screens`, types its keys (Enter alone by default). */
const enterThrough = async (questions: ReadonlyArray<Question>, screens: ReadonlyArray<RegExp | readonly [RegExp, string]>) => {
  const input = new PassThrough()
  const output = new PassThrough()
  let screen = ""
  output.on("data", (chunk: Buffer) => (screen += chunk.toString()))
  const host = { takeOver: () => {}, giveBack: () => {}, commit: () => {}, columns: () => 80, output, input, interruptTurn: () => {} }
  const outcome = Effect.runPromise(makeDialogs(host, plainPalette).askQuestions(questions))
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
