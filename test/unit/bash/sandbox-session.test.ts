/**
 * The session's long-lived sandbox (src/bash/sandbox-session.ts, sandbox-pool.ts): commands share
 * one sandbox per session and still come back as bare ones do (output, exit codes, signals, two at
 * once), a dead or stopped supervisor is replaced, a sandbox that cannot start makes the call fail
 * without running it, and closing the session leaves nothing of the sandbox alive. Processes are
 * found from outside, by a marker in their command line (`sleep 1000.<n>`), as in sandbox-kill.
 */
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterEach, describe, expect, it } from "vitest"
import { makeBackgroundBash, type BackgroundBashShape } from "../../../src/bash/background.ts"
import { runForeground } from "../../../src/bash/foreground.ts"
import { sandboxStatus } from "../../../src/bash/sandbox.ts"
import { makeSandboxPool } from "../../../src/bash/sandbox-pool.ts"
import { redactingSink } from "../../../src/secrets/redact.ts"
import { noSecrets } from "../../../src/secrets/secrets.ts"
import { makeBashTools } from "../../../src/tools/bash-tools.ts"
import type { ToolContext } from "../../../src/tools/tool.ts"
import { alive, classifyForTest, eventually, makeWorkspace, reap, runTool, type Workspace } from "./support.ts"

const status = sandboxStatus()
const usable = status.available && status.kind === "bwrap"
const skipped = usable ? "" : ` (skipped: ${status.available ? `${status.kind} cannot be tested on this platform` : status.reason})`
const bwrap = status.available ? status.program : "bwrap"

const leftovers = new Set<number>()
const scopes: Array<Scope.CloseableScope> = []
afterEach(async () => {
  await Promise.all(scopes.splice(0).map((scope) => Effect.runPromise(Scope.close(scope, Exit.void))))
  reap(leftovers)
  leftovers.clear()
})

const marker = (): string => `1000.${crypto.randomInt(1, 1_000_000_000)}`

const sleepers = (mark: string): Array<number> => {
  const found: Array<number> = []
  for (const name of fs.readdirSync("/proc")) {
    if (!/^\d+$/.test(name)) continue
    try {
      const argv = fs.readFileSync(`/proc/${name}/cmdline`, "latin1").split("\0")
      if (argv[0]?.endsWith("sleep") === true && argv[1] === mark && alive(Number(name))) found.push(Number(name))
    } catch {
      // gone meanwhile
    }
  }
  found.forEach((pid) => leftovers.add(pid))
  return found
}

const sandboxed = (ws: Workspace): ToolContext => ({ ...ws.context, spillDir: ws.spillDir, sandbox: "read-only" })

/** A session: its BackgroundBash (which owns the sandboxes) and the shell tools on it, closed after the test. */
const session = async (options: { readonly bashTimeoutSeconds?: number; readonly graceMs?: number; readonly env?: NodeJS.ProcessEnv } = {}) => {
  const scope = Effect.runSync(Scope.make())
  scopes.push(scope)
  const background: BackgroundBashShape = await Effect.runPromise(
    makeBackgroundBash({ timeoutSeconds: null, graceMs: options.graceMs ?? 300 }).pipe(Effect.provideService(Scope.Scope, scope))
  )
  const tools = makeBashTools({ background, bashTimeoutSeconds: options.bashTimeoutSeconds ?? 30, classifyCommand: classifyForTest, graceMs: options.graceMs ?? 300, ...(options.env === undefined ? {} : { env: options.env }) })
  const bash = async (command: string, context: ToolContext): Promise<string> => (await Effect.runPromise(runTool(tools.bash, { command }, context))).text
  const close = () => Effect.runPromise(Scope.close(scope, Exit.void))
  return { background, tools, bash, close, scope }
}

describe.skipIf(!usable)(`the session's sandbox${skipped}`, () => {
  it("is one per session: its private /tmp lasts from one command to the next, and no command inherits the supervisor's pipes", async () => {
    const ws = await makeWorkspace()
    const { background, bash } = await session()
    const name = `crystal-sandbox-session-${crypto.randomBytes(4).toString("hex")}`
    expect(await bash(`echo kept > /tmp/${name}; [ -w . ] || echo read-only`, sandboxed(ws))).toBe("exit 0\nread-only")
    expect(await bash(`cat /tmp/${name}`, sandboxed(ws))).toBe("exit 0\nkept")
    expect(fs.existsSync(`/tmp/${name}`)).toBe(false)
    expect(background.sandbox.sandboxes()).toHaveLength(1)
    // fd 3 is ls's own directory handle.
    expect(await bash("ls /proc/self/fd | sort -n | tr '\\n' ' '", sandboxed(ws))).toBe("exit 0\n0 1 2 3 ")
  })

  it("runs the command alone, without the user's ~/.bashrc, when Crystal was started with SHLVL unset (stdin is a socket there)", async () => {
    const ws = await makeWorkspace()
    const home = path.join(ws.workspace, "home")
    fs.mkdirSync(home)
    fs.writeFileSync(path.join(home, ".bashrc"), "echo BASHRC-RAN\n")
    const env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: home, SHELL: "/bin/bash" }
    const { bash } = await session({ env })
    expect(await bash("echo command", sandboxed(ws))).toBe("exit 0\ncommand")
  })

  it("keeps the supervisor out of the commands' reach: no /proc/PID/environ, no /proc/PID/fd", async () => {
    const ws = await makeWorkspace()
    const { bash } = await session()
    const text = await bash(
      "for p in $(ls /proc | grep -E '^[0-9]+$'); do [ $p = $$ ] || { cat /proc/$p/environ >/dev/null 2>&1 && echo environ $p; ls /proc/$p/fd/ 2>/dev/null | head -1 | grep -q . && ls -l /proc/$p/fd/ 2>/dev/null | grep -q -- '->' && echo fd $p; }; done; echo checked",
      sandboxed(ws)
    )
    expect(text).toBe("exit 0\nchecked")
  })

  it("reports exit codes and signals as the bare path does", async () => {
    const ws = await makeWorkspace()
    const { bash } = await session()
    for (const command of ["exit 7", "kill -TERM $$", "kill -KILL $$", "kill -INT $$", "echo out; echo err >&2; exit 3", "cd /nonexistent-dir", "printf 'no newline'"]) {
      expect(await bash(command, sandboxed(ws)), command).toBe(await bash(command, ws.context))
    }
    expect(await bash("kill -TERM $$", sandboxed(ws))).toBe("killed by SIGTERM\n(no output)")
  })

  it("fails a command whose working directory is missing as the bare path does", async () => {
    const ws = await makeWorkspace()
    const { background } = await session()
    const request = { mode: "read-only", cwd: ws.workspace, readable: [], writable: [] } as const
    const missing = path.join(ws.workspace, "missing")
    const failure = (extra: object) =>
      Effect.runPromise(Effect.flip(runForeground({ secrets: noSecrets, command: "echo hi", cwd: missing, timeoutSeconds: 10, ...extra }))).then((error) => error.message)
    expect(await failure({ sandbox: request, sandboxPool: background.sandbox })).toBe(await failure({}))
    expect(await failure({})).toBe(`could not start /bin/bash: the directory ${missing} does not exist`)
  })

  it("relays a large output whole, as the bare path reads it (the supervisor holds the pipes while the host catches up)", async () => {
    const ws = await makeWorkspace()
    const { background } = await session()
    const request = { mode: "read-only", cwd: ws.workspace, readable: [], writable: [] } as const
    const command = "seq 1 3000000; echo end"
    const run = (extra: object) => Effect.runPromise(runForeground({ secrets: noSecrets, command, cwd: ws.workspace, timeoutSeconds: 60, captureBytes: 4096, ...extra }))
    const [bare, boxed] = [await run({}), await run({ sandbox: request, sandboxPool: background.sandbox })]
    expect(boxed.totalBytes).toBe(bare.totalBytes)
    expect(boxed.totalBytes).toBeGreaterThan(20_000_000)
    expect(boxed.output).toBe(bare.output)
    expect(boxed.outcome).toEqual({ _tag: "Exited", code: 0 })
  })

  it("runs two commands at once without mixing their outputs", async () => {
    const ws = await makeWorkspace()
    const { bash } = await session()
    const lines = (tag: string) => `for i in $(seq 1 200); do echo ${tag}$i; [ $((i % 50)) = 0 ] && sleep 0.05; done`
    const expected = (tag: string) => `exit 0\n${Array.from({ length: 200 }, (_, i) => `${tag}${i + 1}`).join("\n")}`
    const [a, b] = await Promise.all([bash(lines("a"), sandboxed(ws)), bash(lines("b"), sandboxed(ws))])
    // The bash tool keeps the first and last lines; the spilled full text is what was written.
    const full = (text: string) => {
      const spilled = /full output saved to (\S+)/.exec(text)?.[1]
      return spilled === undefined ? text : `exit 0\n${fs.readFileSync(spilled, "utf8").trimEnd()}`
    }
    expect(full(a)).toBe(expected("a"))
    expect(full(b)).toBe(expected("b"))
  })

  it("gives a timed-out command's processes their grace period: a SIGTERM handler runs before the tree dies", async () => {
    const ws = await makeWorkspace()
    const m = marker()
    const { bash } = await session({ bashTimeoutSeconds: 0.5, graceMs: 2000 })
    const text = await bash(`trap 'echo cleaned up; exit 0' TERM; sleep ${m} & wait`, sandboxed(ws))
    expect(text).toBe("timed out after 0.5 s; its processes were killed\ncleaned up")
    expect(await eventually(() => sleepers(m).length === 0, 5000)).toBe(true)
  })

  it("cannot be ended from inside: the supervisor is the namespace's pid 1, which no signal from a command reaches", async () => {
    const ws = await makeWorkspace()
    const { background, bash } = await session()
    expect(await bash("echo $$", sandboxed(ws))).toMatch(/^exit 0\n\d+$/)
    const [first] = background.sandbox.sandboxes()
    // Every signal to pid 1, then SIGKILL to everything the command may signal: the sleep dies, pid 1 does not.
    const killed = await bash("sleep 30 & for s in $(seq 1 31); do kill -$s 1 2>/dev/null; done; kill -KILL -1; wait $! 2>/dev/null; echo sleep ended $?", sandboxed(ws))
    expect(killed).toBe("exit 0\nsleep ended 137")
    expect(await bash("sleep 0.3; [ -w . ] || echo read-only", sandboxed(ws))).toBe("exit 0\nread-only")
    expect(background.sandbox.sandboxes()).toEqual([first])
    expect(first?.dead).toBe(false)
  })

  it("replaces a supervisor killed or stopped from outside", async () => {
    const ws = await makeWorkspace()
    const scope = Effect.runSync(Scope.make())
    scopes.push(scope)
    const pool = await Effect.runPromise(makeSandboxPool({ startTimeoutMs: 1500, graceMs: 300 }).pipe(Effect.provideService(Scope.Scope, scope)))
    const { background } = await session()
    const tools = makeBashTools({ background: { ...background, sandbox: pool }, bashTimeoutSeconds: 30, classifyCommand: classifyForTest })
    const run = async (command: string) => (await Effect.runPromise(runTool(tools.bash, { command }, sandboxed(ws)))).text
    expect(await run("echo one")).toBe("exit 0\none")
    const killedPid = pool.sandboxes()[0]?.supervisorPid
    expect(killedPid).toBeDefined()
    process.kill(killedPid!, "SIGKILL")
    expect(await run("echo two")).toBe("exit 0\ntwo")
    const stopped = pool.sandboxes()[0]
    expect(stopped?.supervisorPid).not.toBe(killedPid)
    process.kill(stopped!.supervisorPid!, "SIGSTOP")
    // Not started within 1.5 s: that sandbox is killed, and the command runs in a new one.
    expect(await run("echo three")).toBe("exit 0\nthree")
    expect(pool.sandboxes()[0]).not.toBe(stopped)
    expect(await eventually(() => stopped?.pid === undefined || !alive(stopped.pid), 5000)).toBe(true)
  })

  it("fails the call, without running the command, when no sandbox can be started again", async () => {
    const ws = await makeWorkspace()
    const bin = path.join(path.dirname(ws.workspace), "bin")
    fs.mkdirSync(bin)
    const once = path.join(bin, "started-once")
    // A bwrap that works the first time only (the restart after the supervisor's death fails).
    const wrapper = path.join(bin, "bwrap")
    fs.writeFileSync(wrapper, `#!/bin/sh\nif [ -e ${once} ]; then echo 'bwrap: setting up uid map: Permission denied' >&2; exit 1; fi\n: > ${once}\nexec ${bwrap} "$@"\n`, { mode: 0o755 })
    const scope = Effect.runSync(Scope.make())
    scopes.push(scope)
    const pool = await Effect.runPromise(makeSandboxPool({ graceMs: 300 }).pipe(Effect.provideService(Scope.Scope, scope)))
    const request = { mode: "read-only", cwd: ws.workspace, readable: [ws.workspace], writable: [] } as const
    const made = path.join(ws.workspace, "made.txt")
    const command = (script: string) => {
      const output: Array<Buffer> = []
      return {
        output,
        spawn: pool.spawn(wrapper, request, {
          file: "/bin/sh",
          args: ["-c", `read -r _ || exit 126; exec 0</dev/null 2>&1; ${script}`],
          cwd: ws.workspace,
          env: { PATH: process.env.PATH ?? "/usr/bin:/bin" },
          tag: `test.${marker()}`,
          output: redactingSink(noSecrets, (chunk) => output.push(chunk))
        })
      }
    }
    const first = command("echo first")
    const shell = await Effect.runPromise(first.spawn)
    await Effect.runPromise(shell.finished)
    expect(Buffer.concat(first.output).toString()).toBe("first\n")
    process.kill(pool.sandboxes()[0]!.supervisorPid!, "SIGKILL")
    await eventually(() => pool.sandboxes()[0]?.dead === true)
    // Would create the file if it ran anywhere but in a sandbox; the workspace is writable outside.
    const refused = await Effect.runPromise(Effect.either(command(`touch ${made}`).spawn))
    expect(refused._tag).toBe("Left")
    expect(refused._tag === "Left" ? refused.left.message : "").toBe(
      "the OS sandbox could not run the command, so it did not run (the sandbox ended (exit 1): bwrap: setting up uid map: Permission denied)"
    )
    expect(fs.existsSync(made)).toBe(false)
  })

  it("closing the session kills everything in it: tasks, commands' escapees, the supervisor and bwrap", async () => {
    const ws = await makeWorkspace()
    const [task, escapee] = [marker(), marker()]
    const { background, tools, bash, close } = await session()
    await Effect.runPromise(runTool(tools.bashStart, { command: `sleep ${task} & (sleep ${task} & wait) & wait` }, sandboxed(ws)))
    // Leaves the command's tree and clears its environment (no tag): found by nothing but the sandbox's end.
    expect(await bash(`env -i setsid -f sleep ${escapee}; echo left`, sandboxed(ws))).toBe("exit 0\nleft")
    expect(await eventually(() => sleepers(task).length === 2 && sleepers(escapee).length === 1)).toBe(true)
    const sandbox = background.sandbox.sandboxes()[0]
    const pids = [sandbox?.pid, sandbox?.supervisorPid]
    expect(pids.every((pid) => pid !== undefined && alive(pid))).toBe(true)
    await close()
    expect(sleepers(task)).toEqual([])
    expect(sleepers(escapee)).toEqual([])
    expect(pids.filter((pid) => pid !== undefined && alive(pid))).toEqual([])
  })
})
