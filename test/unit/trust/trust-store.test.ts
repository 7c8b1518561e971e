import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { decideTrust } from "../../../src/trust/trust-question.ts"
import { isTrusted, trust, trustedKeys, trustFile, untrustedEntries, type TrustEntry } from "../../../src/trust/trust-store.ts"
import { tempDir } from "../../support/temp.ts"
import { load, makePlace, writeSet } from "../external-tools/support.ts"

const entry = (name: string, hash = "h1", kind: TrustEntry["kind"] = "tools"): TrustEntry => ({ kind, workspace: "/w", name, hash, describe: `${name} runs x`, details: [] })

const asker = (answer: boolean, asked: Array<string>) => ({
  confirm: (question: string) =>
    Effect.sync(() => {
      asked.push(question)
      return answer
    })
})

describe("the trust store", () => {
  it("stores entries owner-only under the home; a new hash of the same set replaces the old one", async () => {
    const home = await tempDir()
    expect(trustedKeys(home).size).toBe(0)
    await trust(home, [entry("a"), entry("b", "h1", "mcp")])
    expect(isTrusted(home, entry("a"))).toBe(true)
    expect(isTrusted(home, entry("a", "h2"))).toBe(false)
    expect(isTrusted(home, entry("b", "h1", "tools"))).toBe(false)
    expect(((await fs.stat(trustFile(home))).mode & 0o777).toString(8)).toBe("600")
    await trust(home, [entry("a", "h2")])
    const stored = JSON.parse(await fs.readFile(trustFile(home), "utf8")) as { trusted: Array<{ name: string; hash: string }> }
    expect(stored.trusted.map((item) => [item.name, item.hash])).toEqual([["b", "h1"], ["a", "h2"]])
    expect(untrustedEntries(home, [entry("a"), entry("a", "h2")]).map((item) => item.hash)).toEqual(["h1"])
  })

  it("a broken trust file trusts nothing and is never overwritten", async () => {
    const home = await tempDir()
    await fs.writeFile(trustFile(home), "{ broken")
    const asked: Array<string> = []
    const decision = await Effect.runPromise(decideTrust({ home, workspace: "/w", entries: [entry("a")], assume: false, asker: asker(true, asked) }))
    expect(decision.trusted).toEqual([])
    expect(decision.notes[0]).toMatch(/trust\.json: not valid JSON/)
    expect(asked).toEqual([])
    expect(await fs.readFile(trustFile(home), "utf8")).toBe("{ broken")
  })

  it("asks once for every untrusted entry (tool sets and MCP servers together), naming each and what it runs", async () => {
    const home = await tempDir()
    await trust(home, [entry("known")])
    const asked: Array<string> = []
    const decision = await Effect.runPromise(
      decideTrust({ home, workspace: "/w", entries: [entry("known"), entry("new"), entry("srv", "h1", "mcp")], assume: false, asker: asker(true, asked) })
    )
    expect(asked.length).toBe(1)
    expect(asked[0]).toBe("/w supplies programs the model could run:\n  tool set new: new runs x\n  MCP server srv: srv runs x\nTrust them? (asked again when they change)")
    expect(decision.trusted.map((item) => item.name)).toEqual(["known", "new", "srv"])
    expect(isTrusted(home, entry("srv", "h1", "mcp"))).toBe(true)
  })

  it("assume (--trust-project-tools) trusts without asking or storing", async () => {
    const home = await tempDir()
    const asked: Array<string> = []
    const decision = await Effect.runPromise(decideTrust({ home, workspace: "/w", entries: [entry("a")], assume: true, asker: asker(false, asked) }))
    expect(decision.trusted.length).toBe(1)
    expect(asked).toEqual([])
    await expect(fs.access(trustFile(home))).rejects.toThrow()
  })

  it("a workspace's tool set: asked once, remembered, asked again when a file its command names changes", async () => {
    const place = await makePlace()
    const dir = await writeSet(place, "project", "lint", {
      "tools.json": { tools: [{ name: "lint", description: "lints", command: ["python3", "./lint.py"] }] },
      "lint.py": "print('v1')\n"
    })
    const asked: Array<string> = []
    expect((await load(place, { answer: false, questions: asked })).tools()).toEqual([])
    expect(asked.length).toBe(1)
    expect(asked[0]).toContain(`tool set lint: each tool runs its program in ${place.workspace}\n      lint → python3 ./lint.py\n`)
    expect((await load(place, { answer: true, questions: asked })).tools().map((tool) => tool.name)).toEqual(["lint"])
    expect(asked.length).toBe(2)
    expect((await load(place, { answer: false, questions: asked })).tools().map((tool) => tool.name)).toEqual(["lint"])
    expect(asked.length).toBe(2)
    await fs.writeFile(path.join(dir, "lint.py"), "print('v2')\n")
    expect((await load(place, { answer: false, questions: asked })).tools()).toEqual([])
    expect(asked.length).toBe(3)
  })
})
