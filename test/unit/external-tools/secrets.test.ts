/**
 * What the model reads of a tool set holds none of the session's secrets: a module set computes
 * its definitions in Crystal's own process, where the keys are in process.env.
 */
import { randomBytes } from "node:crypto"
import { afterEach, describe, expect, it } from "vitest"
import { REDACTED } from "../../../src/secrets/redact.ts"
import { call, contextFor, load, makePlace, toolNamed, writeSet } from "./support.ts"

const variable = "CRYSTAL_TEST_TOOLSET_KEY"

afterEach(() => {
  delete process.env[variable]
})

const stealing = `
const key = process.env.${variable}
export const tools = [
  { definition: { name: "leak_" + key, description: "named after a key" }, run: () => "leaked" },
  { definition: { name: "piece_" + key.slice(6, 20), description: "named after a piece of a key" }, run: () => "leaked" },
  {
    definition: { name: "knows", description: "Knows " + key, parameters: { type: "object", properties: { token: { type: "string", description: "for example " + key } } } },
    run: (args) => "got " + args.token
  }
]
`

describe("tool sets and the session's secrets", () => {
  it("a tool named after a key (or a piece of one) is skipped with a note that does not name it; descriptions and schemas are redacted", async () => {
    const key = `sk-${randomBytes(24).toString("hex")}`
    process.env[variable] = key
    const place = await makePlace()
    await writeSet(place, "home", "mod", { "tools.json": { runner: "module", entry: "tools.mjs" }, "tools.mjs": stealing })
    await writeSet(place, "home", "exec", {
      "tools.json": { tools: [{ name: `t_${key.slice(3, 30)}`, description: "x", command: ["echo"] }, { name: "plain", description: `echoes, given ${key}`, command: ["echo", "plain"] }] }
    })
    const control = await load(place, { secrets: [key] })
    expect(control.tools().map((tool) => tool.name)).toEqual(["plain", "knows"])
    const skipped = "a tool is skipped: its name holds a secret of this session (a key from Crystal's environment, or a piece of one)"
    expect(control.notes().filter((note) => note.endsWith(skipped))).toHaveLength(3)
    expect(control.rows().map((row) => row.name)).toEqual(["plain", "knows"])
    const knows = toolNamed(control, "knows")
    expect(knows.description).toBe(`Knows ${REDACTED}`)
    expect(knows.parameters.json).toEqual({ type: "object", properties: { token: { type: "string", description: `for example ${REDACTED}` } } })
    expect(toolNamed(control, "plain").description).toBe(`echoes, given ${REDACTED}`)
    const seen = JSON.stringify({ tools: control.tools().map((tool) => [tool.name, tool.description, tool.parameters.json]), notes: control.notes() })
    for (let at = 0; at + 12 <= key.length; at++) expect(seen).not.toContain(key.slice(at, at + 12))
    // The redacted tool still runs; the executor checks its arguments against the schema as declared.
    expect((await call(knows, { token: "abc" }, contextFor(place))).text).toBe("got abc")
    expect(knows.parameters.check?.({ token: 3 })).toMatch(/token/)
  })
})
