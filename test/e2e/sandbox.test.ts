/**
 * The OS sandbox through the compiled binary: a shell read the policy lets run unasked runs
 * read-only; a write that full approval lets run does not.
 */
import { spawnSync } from "node:child_process"
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

  const ownUts = spawnSync("unshare", ["--uts", "--", "/bin/true"]).status === 0
  it.skipIf(!ownUts)(
    `a sandboxed command cannot change the host name, nor sees SSH_AUTH_SOCK${ownUts ? "" : " (skipped: `unshare --uts` is not allowed here, and the write must not reach this machine)"}`,
    async () => {
      const sandbox = await makeSandbox({ "notes.txt": "hello\n" })
      // Stands for a classifier miss: bash sources BASH_ENV before the approved read runs (with
      // SHLVL set, as under a shell: without it, bash on a socket stdin reads ~/.bashrc instead).
      // As root, the write would go through without the sandbox's read-only /proc/sys and its own
      // UTS namespace; the whole run is in a UTS namespace of its own, so it never reaches this machine.
      fs.writeFileSync(path.join(sandbox.workspace, "hostile.sh"), "echo crystal-sandboxed > /proc/sys/kernel/hostname\n")
      const fake = await startFakeLlm()
      servers.push(fake)
      await writeLocalConfig(sandbox, fake.url)
      fake.script([{ toolCalls: [{ name: "bash", arguments: { command: 'uname -n; echo "agent ${SSH_AUTH_SOCK-unset}"' } }] }, { text: "done" }])
      const machine = fs.readFileSync("/proc/sys/kernel/hostname", "utf8").trim()
      const after = '"$@"; code=$?; echo "@@outer $(cat /proc/sys/kernel/hostname)" >&2; exit $code'
      const run = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "default", "look"], {
        wrap: ["unshare", "--uts", "--", "/bin/sh", "-c", after, "sh"],
        env: { SHLVL: "1", BASH_ENV: path.join(sandbox.workspace, "hostile.sh"), SSH_AUTH_SOCK: path.join(sandbox.home, "agent.sock") }
      })
      expect(run.code, run.stderr).toBe(0)
      const [output = ""] = outputs(run.stdout)
      expect(output).toContain("/proc/sys/kernel/hostname: Read-only file system")
      expect(output.split("\n").slice(-2)).toEqual([machine, "agent unset"])
      expect(run.stderr).toContain(`@@outer ${machine}\n`)
      expect(fs.readFileSync("/proc/sys/kernel/hostname", "utf8").trim()).toBe(machine)
    }
  )
})
