import { describe, expect, it } from "vitest"
import { builtinPrompts } from "../../../src/prompts/builtin/index.ts"
import { bindPlaceholders } from "../../../src/prompts/placeholders.ts"
import { hostPlaceholderNames, makePlaceholderRegistry } from "../../../src/prompts/placeholder-registry.ts"
import { hostValues } from "../../../src/prompts/values.ts"

const host = hostValues({
  workspace: "/w",
  mode: "work",
  approval: "default",
  model: "local/m",
  sessionId: "s1",
  disabledTools: [],
  access: [],
  instructions: [],
  skills: "",
  now: new Date(0)
})

describe("plugin placeholders", () => {
  it("counts every host slot and every slot a built-in text declares as the host's", () => {
    for (const name of host.keys()) expect(hostPlaceholderNames.has(name)).toBe(true)
    for (const prompt of Object.values(builtinPrompts)) for (const slot of prompt.slots) expect(hostPlaceholderNames.has(slot)).toBe(true)
  })

  it("refuses host names and invalid names, and lets the first plugin keep a duplicate", () => {
    const registry = makePlaceholderRegistry()
    expect(registry.register("jira", "workspace", () => "x")).toEqual({
      _tag: "Refused",
      note: "Plugin 'jira': {{workspace}} belongs to Crystal; not registered."
    })
    expect(registry.register("jira", "bad name", () => "x")._tag).toBe("Refused")
    expect(registry.register("jira", "ticket", () => "CRY-1")).toEqual({ _tag: "Registered" })
    expect(registry.register("linear", "ticket", () => "LIN-2")).toEqual({
      _tag: "Refused",
      note: "Plugin 'linear': {{ticket}} is already registered by plugin 'jira', which keeps it."
    })
    const values = registry.withHostValues(host)
    expect(bindPlaceholders("{{ticket}} in {{workspace}}", values)).toBe("CRY-1 in /w")
  })

  it("leaves the token of a resolver that throws or returns nothing, with an English note", () => {
    const registry = makePlaceholderRegistry()
    registry.register("p", "broken", () => {
      throw new Error("no network")
    })
    registry.register("p", "empty", () => undefined)
    const notes: Array<string> = []
    const text = bindPlaceholders("{{broken}} {{empty}} {{date}}", registry.withHostValues(host), (note) => notes.push(note))
    expect(text).toBe(`{{broken}} {{empty}} ${host.get("date")}`)
    expect(notes).toEqual([
      "The placeholder {{broken}} failed (no network); it was left as it is.",
      "The placeholder {{empty}} has no value; it was left as it is."
    ])
  })

  it("resolves plugin values at each composition", () => {
    const registry = makePlaceholderRegistry()
    let calls = 0
    registry.register("p", "count", () => String(++calls))
    const values = registry.withHostValues(host)
    expect(bindPlaceholders("{{count}}", values)).toBe("1")
    expect(bindPlaceholders("{{count}}", values)).toBe("2")
  })
})
