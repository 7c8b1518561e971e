import { describe, expect, it } from "vitest"
import { expandCommand, splitArguments } from "../../../src/prompts/command-arguments.ts"

describe("command arguments", () => {
  it.each([
    ["", []],
    ["  one   two ", ["one", "two"]],
    [`"two words" three`, ["two words", "three"]],
    [`'single $quoted' "double \\"escaped\\""`, ["single $quoted", 'double "escaped"']],
    [`a\\ b c`, ["a b", "c"]],
    [`pre"fix"post ''`, ["prefixpost", ""]],
    [`"unclosed quote`, ["unclosed quote"]],
    [`tab\tand\nnewline`, ["tab", "and", "newline"]]
  ] as const)("splits %j like a shell", (text, words) => {
    expect(splitArguments(text)).toEqual(words)
  })

  const values = new Map<string, string | (() => string | undefined)>([
    ["workspace", "/ws"],
    ["instructions", "Use $1 and $ARGUMENTS literally"],
    ["broken", () => undefined]
  ])

  it("fills $ARGUMENTS, $1…$9 and placeholders in one pass", () => {
    const body = "Review $1 (priority $2, missing '$9') in {{workspace}}.\nAll: $ARGUMENTS\n{{unknown}} {{instructions}}"
    expect(expandCommand(body, `"src/a b.ts" high`, values)).toBe(
      `Review src/a b.ts (priority high, missing '') in /ws.\nAll: "src/a b.ts" high\n{{unknown}} Use $1 and $ARGUMENTS literally`
    )
  })

  it("never reads what a value inserted: an argument holding {{workspace}} or $2 stays as typed", () => {
    expect(expandCommand("A: $1 / $ARGUMENTS", "{{workspace}} $2", values)).toBe("A: {{workspace}} / {{workspace}} $2")
  })

  it("adds the arguments after a body that reads none, rather than dropping them", () => {
    expect(expandCommand("Summarise the diff.\n", "focus on tests", values)).toBe("Summarise the diff.\n\nfocus on tests")
    expect(expandCommand("Summarise the diff.\n", "", values)).toBe("Summarise the diff.\n")
  })

  it("says when a placeholder has no value and leaves it", () => {
    const notes: Array<string> = []
    expect(expandCommand("x {{broken}}", "", values, (note) => notes.push(note))).toBe("x {{broken}}")
    expect(notes).toEqual(["The placeholder {{broken}} has no value; it was left as it is."])
  })
})
