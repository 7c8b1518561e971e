import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { discoverToolSets } from "../../../src/external-tools/discover.ts"
import { trustEntryFor } from "../../../src/external-tools/session-tools.ts"
import { load, makePlace, writeSet } from "./support.ts"

const execSet = (name: string, extra: Record<string, unknown> = {}) => ({
  ...extra,
  tools: [{ name, description: `the ${name} tool`, parameters: { type: "object", properties: {} }, command: ["echo", name] }]
})

describe("tool set discovery", () => {
  it("loads home and project sets; a project folder of the same name replaces the home set", async () => {
    const place = await makePlace()
    await writeSet(place, "home", "lint", { "tools.json": execSet("home_lint") })
    await writeSet(place, "home", "other", { "tools.json": execSet("other_tool") })
    await writeSet(place, "project", "lint", { "tools.json": execSet("project_lint") })
    const control = await load(place, { assumeTrust: true })
    expect(control.tools().map((tool) => tool.name)).toEqual(["other_tool", "project_lint"])
    expect(control.entries().map((entry) => [entry.source, entry.name, entry.state])).toEqual([
      ["home", "lint", "replaced"],
      ["home", "other", "enabled"],
      ["project", "lint", "enabled"]
    ])
  })

  it('leaves "enabled": false sets unloaded, and skips discovery entirely with externalTools false', async () => {
    const place = await makePlace()
    await writeSet(place, "home", "off", { "tools.json": execSet("off_tool", { enabled: false }) })
    await writeSet(place, "home", "on", { "tools.json": execSet("on_tool") })
    expect((await load(place)).tools().map((tool) => tool.name)).toEqual(["on_tool"])
    expect((await load(place, { enabled: false })).tools()).toEqual([])
  })

  it("a broken manifest is one note naming the file and the field; the set is skipped and the file left byte for byte", async () => {
    const place = await makePlace()
    const broken = { tools: [{ name: "x", description: "x", command: "python3 x.py" }] }
    const dir = await writeSet(place, "home", "broken", { "tools.json": broken })
    await writeSet(place, "home", "badjson", { "tools.json": "{ nope" })
    await writeSet(place, "home", "badschema", { "tools.json": { tools: [{ name: "y", description: "y", command: ["y"], parameters: { type: "string" } }] } })
    await writeSet(place, "home", "good", { "tools.json": execSet("good_tool") })
    await fs.mkdir(path.join(place.home, "tools", "9bad-name"))
    const before = await fs.readFile(path.join(dir, "tools.json"))
    const control = await load(place)
    expect(control.tools().map((tool) => tool.name)).toEqual(["good_tool"])
    const notes = control.notes()
    expect(notes).toContainEqual(expect.stringMatching(/broken\/tools\.json: tools\[0\]\.command: expected a non-empty list of non-empty strings .*got "python3 x.py"/))
    expect(notes).toContainEqual(expect.stringMatching(/badjson\/tools\.json: not valid JSON/))
    expect(notes).toContainEqual(expect.stringMatching(/badschema\/tools\.json: tools\[0\]\.parameters: expected "type": "object"/))
    expect(notes).toContainEqual(expect.stringMatching(/9bad-name: a tool set's folder name must be 1–64 characters/))
    expect(await fs.readFile(path.join(dir, "tools.json"))).toEqual(before)
  })

  it("built-in and reserved names win: a clashing tool is skipped with a note; so is a second set's tool of a taken name", async () => {
    const place = await makePlace()
    await writeSet(place, "home", "a", { "tools.json": { tools: [...execSet("read").tools, ...execSet("bash_stop").tools, ...execSet("mine").tools] } })
    await writeSet(place, "home", "b", { "tools.json": execSet("mine") })
    const control = await load(place)
    expect(control.tools().map((tool) => tool.name)).toEqual(["mine"])
    expect(control.notes()).toContainEqual(expect.stringMatching(/tool read is skipped: the name belongs to a built-in tool/))
    expect(control.notes()).toContainEqual(expect.stringMatching(/tool bash_stop is skipped: the name belongs to a built-in tool/))
    expect(control.notes()).toContainEqual(expect.stringMatching(/b\/tools\.json: tool mine is skipped: tool set a already provides it/))
  })

  it("the trust hash covers tools.json and the files its commands name, nothing else", async () => {
    const place = await makePlace()
    const dir = await writeSet(place, "project", "s", {
      "tools.json": { tools: [{ name: "t", description: "t", command: ["python3", "./run.py"] }] },
      "run.py": "print(1)\n",
      "README.md": "docs"
    })
    const hash = () => discoverToolSets(place.home, place.workspace).sets[0]?.hash
    const first = hash()
    await fs.writeFile(path.join(dir, "README.md"), "other docs")
    expect(hash()).toBe(first)
    await fs.writeFile(path.join(dir, "run.py"), "print(2)\n")
    const second = hash()
    expect(second).not.toBe(first)
    await fs.writeFile(path.join(dir, "tools.json"), JSON.stringify({ tools: [{ name: "t", description: "t2", command: ["python3", "./run.py"] }] }))
    expect(hash()).not.toBe(second)
  })

  it("the trust hash covers the workspace files an exec command names where it runs, the workspace root: sh scripts/run.sh, sh -c './a.sh;true', node -e", async () => {
    const place = await makePlace()
    await fs.mkdir(path.join(place.workspace, "scripts"), { recursive: true })
    await fs.writeFile(path.join(place.workspace, "scripts", "run.sh"), "echo one\n")
    await fs.writeFile(path.join(place.workspace, "x.cjs"), "1\n")
    const dir = await writeSet(place, "project", "s", {
      "tools.json": {
        tools: [
          { name: "a", description: "a", command: ["sh", "scripts/run.sh"] },
          { name: "b", description: "b", command: ["sh", "-c", "./own.sh;true"] },
          { name: "c", description: "c", command: ["node", "-e", "require('./x.cjs')"] }
        ]
      },
      "own.sh": "echo own\n"
    })
    const hash = () => discoverToolSets(place.home, place.workspace).sets[0]?.hash
    const edits: Array<[string, string]> = [
      [path.join(place.workspace, "scripts", "run.sh"), "echo two\n"],
      [path.join(dir, "own.sh"), "echo other\n"],
      [path.join(place.workspace, "x.cjs"), "2\n"]
    ]
    for (const [file, text] of edits) {
      const before = hash()
      await fs.writeFile(file, text)
      expect({ file, changed: hash() !== before }).toEqual({ file, changed: true })
    }
    // A file that appears later where a word points asks again too.
    const before = hash()
    await fs.writeFile(path.join(place.workspace, "true"), "")
    expect(hash()).not.toBe(before)
  })

  it("the trust question says which tools run inline code", async () => {
    const place = await makePlace()
    await writeSet(place, "project", "s", {
      "tools.json": { tools: [{ name: "a", description: "a", command: ["sh", "scripts/run.sh"] }, { name: "b", description: "b", command: ["bash", "-ec", "./x.sh"] }] }
    })
    const [set] = discoverToolSets(place.home, place.workspace).sets
    expect(trustEntryFor(place.workspace, set!).details).toEqual([
      "a → sh scripts/run.sh",
      "b → bash -ec ./x.sh",
      expect.stringMatching(/^b runs inline code: trusting covers the workspace files it names, not files it reaches otherwise/)
    ])
  })

  it("the session switches: /tools off|on, enable|disable DIR (the file's enabled field), reload sees new sets", async () => {
    const place = await makePlace()
    const dir = await writeSet(place, "home", "a", { "tools.json": execSet("a_tool") })
    const control = await load(place)
    expect(control.tools().map((tool) => tool.name)).toEqual(["a_tool"])
    await Effect.runPromise(control.setDiscovery(false))
    expect(control.tools()).toEqual([])
    expect(control.discovering()).toBe(false)
    await Effect.runPromise(control.setDiscovery(true))
    expect(control.tools().map((tool) => tool.name)).toEqual(["a_tool"])
    const messages = await Effect.runPromise(control.setEnabled("a", false))
    expect(messages[0]).toBe("home tool set a disabled")
    expect(control.tools()).toEqual([])
    expect(JSON.parse(await fs.readFile(path.join(dir, "tools.json"), "utf8"))).toMatchObject({ enabled: false })
    await writeSet(place, "home", "b", { "tools.json": execSet("b_tool") })
    await Effect.runPromise(control.reload)
    expect(control.tools().map((tool) => tool.name)).toEqual(["b_tool"])
    const missing = await Effect.runPromise(Effect.either(control.setEnabled("nope", true)))
    expect(missing._tag === "Left" && missing.left.message).toBe("no tool set 'nope' (found: a, b)")
  })
})
