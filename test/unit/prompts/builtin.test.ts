import { describe, expect, it } from "vitest"
import { builtinPrompts } from "../../../src/prompts/builtin/index.ts"
import { promptNames } from "../../../src/prompts/names.ts"
import { placeholdersIn } from "../../../src/prompts/placeholders.ts"

describe("built-in prompts", () => {
  it("exist for every named prompt", () => {
    expect(Object.keys(builtinPrompts).sort()).toEqual([...promptNames].sort())
  })

  it.each(promptNames)("%s declares exactly the slots its text uses", (name) => {
    const prompt = builtinPrompts[name]
    expect(prompt.text.trim()).not.toBe("")
    expect([...placeholdersIn(prompt.text)].sort()).toEqual([...prompt.slots].sort())
  })
})
