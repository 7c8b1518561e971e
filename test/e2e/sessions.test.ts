/** `crystal sessions list|show|export|delete` on sessions made by `crystal run`, through the compiled binary. */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, runCrystal, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import { startFakeLlm, type FakeLlm } from "../support/fake-llm/server.ts"

const servers: Array<FakeLlm> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

const secret = "sk-e2e-secret-do-not-export-1234"

/** Two sessions in the workspace, one in another directory; the provider needs a key from the environment. */
const sandboxWithSessions = async () => {
  const sandbox = await makeSandbox({ "README.md": "# hello\n" })
  const fake = await startFakeLlm()
  servers.push(fake)
  await writeLocalConfig(sandbox, fake.url, {
    providers: { local: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, apiKeyEnv: "LOCAL_API_KEY", models: { "test-model": {} } } }
  })
  const env = { LOCAL_API_KEY: secret }
  fake.script([{ text: "First answer." }, { text: "Second answer." }, { text: "Elsewhere." }])
  const ids: Array<string> = []
  for (const prompt of ["first question", "second question"]) {
    const result = await runCrystal(sandbox, ["run", "--format", "json", prompt], { env })
    expect(result.code).toBe(0)
    ids.push(String(jsonLines(result.stdout)[0]?.["id"]))
  }
  const other = path.join(path.dirname(sandbox.workspace), "other")
  await fs.mkdir(other)
  const elsewhere = await runCrystal(sandbox, ["run", "--format", "json", "over there"], { env, cwd: other })
  expect(elsewhere.code).toBe(0)
  return { sandbox, fake, env, ids, otherId: String(jsonLines(elsewhere.stdout)[0]?.["id"]), other }
}

const sessionFile = (sandbox: Sandbox, id: string) => path.join(sandbox.home, "sessions", `${id}.json`)

describe("crystal sessions", () => {
  it("lists by workspace or all, shows, exports without keys, and deletes; an unreadable file is reported and left alone", async () => {
    const { sandbox, env, ids, otherId, other } = await sandboxWithSessions()
    const [first, second] = ids as [string, string]
    const broken = path.join(sandbox.home, "sessions", "20200101-000000-000000.json")
    await fs.writeFile(broken, "{ torn")

    const here = await runCrystal(sandbox, ["sessions", "list", "--format", "text"])
    expect(here.code).toBe(0)
    expect(here.stdout.trim().split("\n").map((line) => line.split("\t")[0])).toEqual([second, first])
    expect(here.stdout.split("\n")[0]?.split("\t").slice(2)).toEqual(["2", "local/test-model", "(untitled)", await fs.realpath(sandbox.workspace)])
    expect(here.stderr).toContain(`unreadable session: ${broken}: not valid JSON; the file was left untouched`)

    const all = await runCrystal(sandbox, ["sessions", "list", "--all"])
    expect(all.stdout).toMatch(/^ID\s+UPDATED \(UTC\)\s+MESSAGES\s+MODEL\s+TITLE\s+WORKSPACE$/m)
    expect(all.stdout).toContain(otherId)
    const there = await runCrystal(sandbox, ["sessions", "list", "--workspace", other, "--format", "text"])
    expect(there.stdout.trim().split("\t")[0]).toBe(otherId)
    expect((await runCrystal(sandbox, ["sessions", "list", "--all", "--workspace", other])).code).toBe(2)

    const shown = await runCrystal(sandbox, ["sessions", "show", first])
    expect(shown.code).toBe(0)
    expect(shown.stdout).toMatch(new RegExp(`^Id\\s+${first}$`, "m"))
    expect(shown.stdout).toContain("[user] first question\n[assistant] First answer.")

    const exported = await runCrystal(sandbox, ["sessions", "export", first], { env })
    expect(exported.code).toBe(0)
    const exportFile = path.join(sandbox.workspace, `crystal-session-${first}.json`)
    expect(exported.stdout).toBe(`exported session ${first} to ${exportFile}\n`)
    const text = await fs.readFile(exportFile, "utf8")
    expect(text).not.toContain(secret)
    const parsed = JSON.parse(text)
    expect(parsed).toMatchObject({ format: "crystal-session-export", version: 1, session: { id: first, model: "local/test-model" } })
    expect(parsed.session).toEqual(JSON.parse(await fs.readFile(sessionFile(sandbox, first), "utf8")))
    const toStdout = await runCrystal(sandbox, ["sessions", "export", second, "--output", "-"], { env })
    expect(JSON.parse(toStdout.stdout).session.id).toBe(second)

    const refused = await runCrystal(sandbox, ["sessions", "delete", "20200101-000000-000000"])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toBe(`crystal: not deleted: ${broken}: not valid JSON; the file was left untouched\n`)
    expect(await fs.readFile(broken, "utf8")).toBe("{ torn")

    const deleted = await runCrystal(sandbox, ["sessions", "delete", first])
    expect(deleted.code).toBe(0)
    expect(deleted.stdout).toBe(`deleted session ${first} (${sessionFile(sandbox, first)})\n`)
    await expect(fs.stat(sessionFile(sandbox, first))).rejects.toThrow()
    const missing = await runCrystal(sandbox, ["sessions", "show", first])
    expect(missing.code).toBe(1)
    expect(missing.stderr).toMatch(/^crystal: no session '.+' in .+\n$/)
  })

  it("refuses to delete a session another live process has open", async () => {
    const { sandbox, ids } = await sandboxWithSessions()
    const id = ids[0] ?? ""
    // This test process stands in for a running crystal that holds the session.
    await fs.writeFile(path.join(sandbox.home, "sessions", `.${id}.lock`), `${process.pid}\n`)
    const refused = await runCrystal(sandbox, ["sessions", "delete", id])
    expect(refused.code).toBe(1)
    expect(refused.stderr).toBe(`crystal: session ${id} is open in another crystal process (pid ${process.pid}); close it there first\n`)
    expect((await fs.stat(sessionFile(sandbox, id))).isFile()).toBe(true)
  })
})
