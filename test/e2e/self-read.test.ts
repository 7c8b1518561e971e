/**
 * Files Crystal reads by itself (issue 23, item 4), through the compiled binary: a workspace whose
 * AGENTS.md, CRYSTAL.md and prompt file are links to files outside it (a secret file, and
 * /proc/self/environ holding a marker in Crystal's own environment) sends none of them to the
 * model and stores none of them, in work and plan mode, and says which files it refused; FIFOs in
 * the same places do not hang `crystal run` (a run still going after the timeout is killed and the
 * test fails).
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, runCrystal, sessionFiles, writeLocalConfig } from "../support/crystal.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { makeFifo, unblockFifoAfter, type FifoGuard } from "../support/fifo.ts"

const fakeServer = useFakeServers()

const guards: Array<FifoGuard> = []
afterEach(() => {
  for (const guard of guards.splice(0)) guard.stop()
})

const secret = "SSH-KEY-MARKER-5c2e91"
const environMarker = "ENVIRON-MARKER-a81f03"

const notes = (stdout: string) => jsonLines(stdout).filter((event) => event["type"] === "note").map((event) => String(event["text"]))

describe("files Crystal reads by itself in crystal run", () => {
  it.each([["work"], ["plan"]])("%s mode: links out of the workspace reach neither the model nor the session file; notes name them", async (mode) => {
    const sandbox = await makeSandbox({ "README.md": "# project\n" })
    const outside = path.join(sandbox.home, "..", "id_ed25519")
    await fs.writeFile(outside, `-----BEGIN OPENSSH PRIVATE KEY-----\n${secret}\n`)
    await fs.symlink(outside, path.join(sandbox.workspace, "AGENTS.md"))
    await fs.symlink("/proc/self/environ", path.join(sandbox.workspace, "CRYSTAL.md"))
    await fs.mkdir(path.join(sandbox.workspace, ".crystal", "prompts"), { recursive: true })
    await fs.symlink(outside, path.join(sandbox.workspace, ".crystal", "prompts", `${mode}.md`))
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ text: "Hello." }])

    const result = await runCrystal(sandbox, ["run", "--format", "json", "--mode", mode, "hi"], { env: { CRYSTAL_TEST_MARKER: environMarker }, timeoutMs: 45_000 })
    expect(result.code).toBe(0)
    expect(fake.requests).toHaveLength(1)
    const sent = JSON.stringify(fake.requests.map((request) => request.body))
    expect(sent).not.toContain(secret)
    expect(sent).not.toContain(environMarker)
    const [session] = await sessionFiles(sandbox)
    const stored = await fs.readFile(session ?? "", "utf8")
    expect(stored).not.toContain(secret)
    expect(stored).not.toContain(environMarker)
    const workspace = await fs.realpath(sandbox.workspace)
    expect(notes(result.stdout)).toEqual(
      expect.arrayContaining([
        `${path.join(workspace, "AGENTS.md")} is a symbolic link to a file outside the workspace; it was not read`,
        `${path.join(workspace, "CRYSTAL.md")} is a symbolic link to a file outside the workspace; it was not read`,
        `${path.join(workspace, ".crystal", "prompts", `${mode}.md`)} is a symbolic link to a file outside the workspace; it was not read`
      ])
    )
  })

  it("FIFOs as AGENTS.md, a prompt file, tools.json and mcp.json: the run completes and says why each was refused", async () => {
    const sandbox = await makeSandbox({ "README.md": "# project\n" })
    const workspace = await fs.realpath(sandbox.workspace)
    const fifos = ["AGENTS.md", ".crystal/prompts/work.md", ".crystal/tools/pipe/tools.json", ".crystal/mcp.json"].map((name) => path.join(workspace, name))
    for (const fifo of fifos) {
      await fs.mkdir(path.dirname(fifo), { recursive: true })
      makeFifo(fifo)
      // Past the run's timeout: a run blocked on a FIFO is killed by the timeout, not freed by this.
      guards.push(unblockFifoAfter(fifo, 120))
    }
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ text: "Hello." }])

    const result = await runCrystal(sandbox, ["run", "--format", "json", "hi"], { timeoutMs: 45_000 })
    expect(result.code).toBe(0)
    expect(fake.requests).toHaveLength(1)
    const said = notes(result.stdout).join("\n")
    for (const fifo of fifos) expect(said).toContain(`${fifo} is a FIFO (named pipe), not a regular file; it was not read`)
  })
})
