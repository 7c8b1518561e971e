/**
 * The kernel's files in the sandbox (src/bash/sandbox-kernel.ts): run as root, a sandboxed command
 * keeps uid 0, and most of /proc checks only the mode. Every write here runs with the real bwrap
 * and Crystal's real arguments inside a UTS namespace of its own (`unshare --uts`), so a failure
 * changes that namespace's host name, never this machine's; core_pattern is only ever written
 * with its current value, and sysrq-trigger is never written at all (its mount and access tell).
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterEach, describe, expect, it } from "vitest"
import { makeBackgroundBash } from "../../../src/bash/background.ts"
import { runForeground } from "../../../src/bash/foreground.ts"
import { sandboxedArgv, sandboxStatus, type SandboxRequest } from "../../../src/bash/sandbox.ts"
import { MASKED_KERNEL_DIRS, MASKED_KERNEL_FILES } from "../../../src/bash/sandbox-kernel.ts"
import { noSecrets } from "../../../src/secrets/secrets.ts"

const status = sandboxStatus()
const usable = status.available && status.kind === "bwrap"
const ownUts = spawnSync("unshare", ["--uts", "--", "/bin/true"]).status === 0
const skipped = !usable
  ? ` (skipped: ${status.available ? `${status.kind} cannot be tested on this platform` : status.reason})`
  : ownUts
    ? ""
    : " (skipped: `unshare --uts` is not allowed here, and the writes must not reach this machine's host name)"

const request: SandboxRequest = { mode: "read-only", cwd: os.tmpdir(), readable: [os.tmpdir()], writable: [] }

interface Run {
  /** What the command printed (stdout and stderr). */
  readonly inside: string
  /** The host name and UTS namespace of the `unshare` namespace the sandbox ran in, read after it. */
  readonly outerName: string
  readonly outerUts: string
}

/** `script` in a fresh UTS namespace: sandboxed with Crystal's own bwrap argv, or bare. */
const inOwnUts = (script: string, sandboxed: boolean): Run => {
  const argv = sandboxed ? sandboxedArgv(request, "/bin/sh", ["-c", `exec 2>&1; ${script}`]) : { file: "/bin/sh", args: ["-c", `exec 2>&1; ${script}`] }
  if (argv === undefined) throw new Error("no sandbox")
  const after = 'echo "@@outer $(cat /proc/sys/kernel/hostname) $(readlink /proc/self/ns/uts)"'
  const result = spawnSync("unshare", ["--uts", "--", "/bin/sh", "-c", `"$@"; ${after}`, "sh", argv.file, ...argv.args], { encoding: "utf8", cwd: request.cwd })
  const [inside = "", outer = ""] = result.stdout.split("@@outer ")
  const [outerName = "", outerUts = ""] = outer.trim().split(" ")
  return { inside: inside + result.stderr, outerName, outerUts }
}

const hostname = (): string => fs.readFileSync("/proc/sys/kernel/hostname", "utf8").trim()

/** The mount options of the mount at `point` in the sandbox's /proc/self/mountinfo, printed by the script. */
const mountOptions = (point: string): string => `awk '$5 == "${point}" { o = $6 } END { print "${point}:" o }' /proc/self/mountinfo`

describe.skipIf(!usable || !ownUts)(`the kernel's files in the OS sandbox, run as root${skipped}`, () => {
  it("a write to /proc/sys/kernel/hostname fails read-only, and the host name outside the sandbox stays", () => {
    const machine = hostname()
    const write = "echo crystal-sandboxed > /proc/sys/kernel/hostname; hostname crystal-sandboxed; cat /proc/sys/kernel/hostname"
    // Bare, in its own UTS namespace, the same write goes through: this test can see one that does.
    const bare = inOwnUts(write, false)
    expect(bare.outerName).toBe("crystal-sandboxed")
    expect(hostname()).toBe(machine)

    const run = inOwnUts(write, true)
    expect(run.inside).toContain("/proc/sys/kernel/hostname: Read-only file system")
    expect(run.inside.trim().split("\n").at(-1)).toBe(machine)
    expect(run.outerName).toBe(machine)
    expect(hostname()).toBe(machine)
  })

  it("the sandbox has UTS and IPC namespaces of its own", () => {
    const run = inOwnUts("readlink /proc/self/ns/uts /proc/self/ns/ipc", true)
    const [uts, ipc] = run.inside.trim().split("\n")
    expect(uts).toMatch(/^uts:\[\d+\]$/)
    expect(uts).not.toBe(run.outerUts)
    expect(ipc).not.toBe(fs.readlinkSync("/proc/self/ns/ipc"))
  })

  it("/proc/sys is mounted read-only: writing core_pattern's own value back fails with EROFS, and no sysctl is writable", () => {
    const before = fs.readFileSync("/proc/sys/kernel/core_pattern", "utf8")
    const script = [
      mountOptions("/proc/sys"),
      // Only ever its current value, in one write.
      'value=$(cat /proc/sys/kernel/core_pattern); printf "%s\\n" "$value" > /proc/sys/kernel/core_pattern',
      'echo "writable sysctls: $(find /proc/sys -type f -writable 2>/dev/null | wc -l)"'
    ].join("; ")
    const bare = inOwnUts('echo "writable sysctls: $(find /proc/sys -type f -writable 2>/dev/null | wc -l)"', false)
    expect(Number(/writable sysctls: (\d+)/.exec(bare.inside)?.[1])).toBeGreaterThan(0)

    const run = inOwnUts(script, true)
    expect(run.inside).toMatch(/^\/proc\/sys:ro,/m)
    expect(run.inside).toContain("/proc/sys/kernel/core_pattern: Read-only file system")
    expect(run.inside).toContain("writable sysctls: 0")
    expect(fs.readFileSync("/proc/sys/kernel/core_pattern", "utf8")).toBe(before)
  })

  it.skipIf(!fs.existsSync("/proc/sysrq-trigger"))(
    `/proc/sysrq-trigger is mounted read-only and not writable${fs.existsSync("/proc/sysrq-trigger") ? "" : " (skipped: this kernel has no /proc/sysrq-trigger)"}`,
    () => {
      // Never written: every character is a command (`c` crashes the machine).
      const probe = "[ -w /proc/sysrq-trigger ] && echo sysrq writable || echo sysrq read-only"
      expect(inOwnUts(probe, false).inside).toContain("sysrq writable")
      const run = inOwnUts(`${mountOptions("/proc/sysrq-trigger")}; ${probe}`, true)
      expect(run.inside).toMatch(/^\/proc\/sysrq-trigger:ro,/m)
      expect(run.inside).toContain("sysrq read-only")
    }
  )

  it("what Docker masks cannot be read, where this kernel has it", () => {
    const files = MASKED_KERNEL_FILES.filter((file) => fs.existsSync(file) && fs.statSync(file).isFile())
    const dirs = MASKED_KERNEL_DIRS.filter((dir) => fs.existsSync(dir) && fs.statSync(dir).isDirectory())
    expect(files.length + dirs.length).toBeGreaterThan(0)
    const script = [
      ...files.map((file) => `head -c 1 ${file} >/dev/null 2>&1 && echo "${file} readable" || echo "${file} masked"`),
      ...dirs.map((dir) => `echo "${dir} holds $(ls -A ${dir} | wc -l)"; touch ${dir}/x 2>/dev/null && echo "${dir} writable"`)
    ].join("; ")
    const run = inOwnUts(script, true)
    for (const file of files) expect(run.inside, file).toContain(`${file} masked`)
    for (const dir of dirs) expect(run.inside, dir).toContain(`${dir} holds 0`)
    expect(run.inside).not.toContain("writable")
    // Bare, the files open (as root) and the directories show what they hold.
    const bare = inOwnUts(script, false)
    for (const file of files.filter((name) => name !== "/proc/kcore")) expect(bare.inside, file).toContain(`${file} readable`)
  })
})

const scopes: Array<Scope.CloseableScope> = []
afterEach(async () => {
  await Promise.all(scopes.splice(0).map((scope) => Effect.runPromise(Scope.close(scope, Exit.void))))
})

describe.skipIf(!usable)(`the session's sandbox has the same protections${skipped}`, () => {
  it("no writable sysctl, core_pattern not writable, its own UTS namespace (read-only checks: nothing is written)", async () => {
    const scope = Effect.runSync(Scope.make())
    scopes.push(scope)
    const background = await Effect.runPromise(makeBackgroundBash({ timeoutSeconds: null }).pipe(Effect.provideService(Scope.Scope, scope)))
    const script = [
      'echo "writable sysctls: $(find /proc/sys -type f -writable 2>/dev/null | wc -l)"',
      "[ -w /proc/sys/kernel/core_pattern ] && echo core_pattern writable || echo core_pattern read-only",
      "readlink /proc/self/ns/uts"
    ].join("; ")
    const result = await Effect.runPromise(runForeground({ secrets: noSecrets, command: script, cwd: request.cwd, timeoutSeconds: 60, sandbox: request, sandboxPool: background.sandbox }))
    expect(result.outcome).toEqual({ _tag: "Exited", code: 0 })
    const [writable, corePattern, uts] = result.output.trim().split("\n")
    expect(writable).toBe("writable sysctls: 0")
    expect(corePattern).toBe("core_pattern read-only")
    expect(uts).not.toBe(fs.readlinkSync("/proc/self/ns/uts"))
    expect(background.sandbox.sandboxes()).toHaveLength(1)
  })
})
