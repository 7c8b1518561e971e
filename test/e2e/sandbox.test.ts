/**
 * The OS sandbox through the compiled binary: a shell read the policy lets run unasked runs
 * read-only; a write that full approval lets run does not.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { sandboxStatus } from "../../src/bash/sandbox.ts"
import { jsonLines, makeSandbox, runCrystal, writeLocalConfig } from "../support/crystal.ts"
import { startFakeLlm, type FakeLlm } from "../support/fake-llm/server.ts"

const servers: Array<FakeLlm> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

const status = sandboxStatus()
const usable = status.available && status.kind === "bwrap"
const skipped = usable ? "" : ` (skipped: ${status.available ? `${status.kind} cannot be tested on this platform` : status.reason})`

const probe = "cat notes.txt; [ -w notes.txt ] && echo writable || echo read-only"

const outputs = (stdout: string) =>
  jsonLines(stdout).filter((event) => event["type"] === "tool_result").map((event) => String(event["output"]))

describe.skipIf(!usable)(`the OS sandbox in crystal run${skipped}`, () => {
  it("runs an auto-approved read read-only, and a write full approval allows as it is", async () => {
    const sandbox = await makeSandbox({ "notes.txt": "hello\n" })
    const fake = await startFakeLlm()
    servers.push(fake)
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ toolCalls: [{ name: "bash", arguments: { command: probe } }] }, { text: "done" }])
    const read = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "default", "look"])
    expect(read.code).toBe(0)
    expect(outputs(read.stdout)).toEqual(["exit 0\nhello\nread-only"])
    expect(read.stdout + read.stderr).not.toContain("no OS sandbox")

    // One sandbox for the session, with the binary itself as its supervisor (pid 2 inside): each
    // command is a new process in it, where a bwrap of its own would make every shell pid 2.
    const pid = "cat notes.txt; echo $$"
    fake.script([
      { toolCalls: [{ name: "bash", arguments: { command: pid } }] },
      { toolCalls: [{ name: "bash", arguments: { command: pid } }] },
      { text: "done" }
    ])
    const twice = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "default", "look twice"])
    expect(twice.code).toBe(0)
    const pids = outputs(twice.stdout).map((text) => {
      expect(text).toMatch(/^exit 0\nhello\n\d+$/)
      return Number(text.split("\n")[2])
    })
    expect(pids).toHaveLength(2)
    expect(pids[0]).toBeGreaterThan(2)
    expect(pids[1]).toBeGreaterThan(pids[0] ?? 0)

    fake.script([{ toolCalls: [{ name: "bash", arguments: { command: `touch made.txt; ${probe}` } }] }, { text: "done" }])
    const write = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "make it"])
    expect(outputs(write.stdout)).toEqual(["exit 0\nhello\nwritable"])
    expect(fs.existsSync(path.join(sandbox.workspace, "made.txt"))).toBe(true)
  })
})
