/**
 * The OS sandbox (src/bash/sandbox.ts) under the read-only controls: every command here is one the
 * real classifier and policy let run unasked, and each runs through the bash tool twice — bare and
 * sandboxed, with the same output expected — and once more with a writing twist appended that the
 * sandbox must stop: the workspace's bytes, modes and mtimes, the folder around it, the home
 * directory, the shared temporary directories and a TCP listener on 127.0.0.1 are watched. Every
 * twist is also run bare once, to prove it does change what is watched (so the test can fail).
 */
import { spawnSync } from "node:child_process"
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { classifyBash } from "../../../src/approval/bash/classify.ts"
import { decide } from "../../../src/approval/policy.ts"
import { makeBackgroundBash } from "../../../src/bash/background.ts"
import { sandboxStatus } from "../../../src/bash/sandbox.ts"
import { makeBashTools } from "../../../src/tools/bash-tools.ts"
import type { ToolContext } from "../../../src/tools/tool.ts"
import { classifyForTest, makeWorkspace, runTool, type Workspace } from "./support.ts"

const status = sandboxStatus()
const usable = status.available && status.kind === "bwrap"
const skipped = usable ? "" : ` (skipped: ${status.available ? `${status.kind} cannot be tested on this platform` : status.reason})`
const hasRg = spawnSync("rg", ["--version"]).status === 0

/** Read-only controls: pipelines, git, grep/rg/find/sed -n/awk and friends on workspace files. */
const CONTROLS: ReadonlyArray<string> = [
  "git log --oneline",
  "git log -p -1",
  "git status --short",
  "git status",
  "git diff",
  "git diff HEAD --stat",
  "git show --stat HEAD",
  "git branch",
  "git ls-files",
  "git rev-parse HEAD",
  "git log --oneline | head -n 1",
  "grep -rn alpha .",
  "grep -c beta a.txt",
  "grep -rl export src",
  "find . -name '*.ts'",
  "find . -type f -not -path './.git/*' | sort",
  "sed -n 1,2p a.txt",
  "sed -n '/beta/p' a.txt",
  "awk '{print NR\": \"$0}' a.txt",
  "awk -F' ' '{n++} END {print n}' a.txt",
  "cat a.txt",
  "cat a.txt | grep beta | wc -l",
  "ls -l",
  "ls src",
  "wc -l a.txt src/b.ts",
  "head -n 1 a.txt",
  "tail -n 1 a.txt",
  "sort a.txt | uniq -c",
  "sort -r a.txt",
  "cut -c1-3 a.txt",
  "tr a-z A-Z < a.txt",
  "diff a.txt notes.md",
  "du -s src",
  "stat -c %s a.txt",
  "pwd",
  "echo hello",
  ...(hasRg ? ["rg -n alpha | sort", "rg --files | sort", "rg -c beta a.txt"] : [])
]

/** Writes (and one network connection) the sandbox must stop; `{TAG}` and `{PORT}` are filled in. */
const TWISTS: ReadonlyArray<string> = [
  "echo pwned > a.txt",
  "echo more >> a.txt",
  "touch a.txt",
  "touch new.txt",
  "mkdir newdir",
  "rm -f a.txt",
  "mv a.txt moved.txt",
  "ln -s a.txt link",
  "chmod 600 a.txt",
  "cp a.txt copy.txt",
  "sed -i s/alpha/omega/ a.txt",
  "dd if=/dev/zero of=a.txt bs=1 count=1 conv=notrunc",
  "tee tee.txt < a.txt",
  "echo x > /proc/self/cwd/a.txt",
  "git -c user.name=x -c user.email=x@x commit --allow-empty -qm pwned",
  "git config user.name pwned",
  "printf '[core]\\n\\tfsmonitor = touch pwned\\n' >> .git/config",
  "echo x > .git/hooks/pre-commit",
  "python3 -c \"open('py.txt', 'w').write('x')\"",
  "mount -o remount,rw,bind \"$PWD\"; touch remounted.txt",
  "cd .. && touch beside-workspace.txt",
  'touch "$HOME/.crystal-sandbox-{TAG}"',
  "echo x > /var/tmp/crystal-sandbox-{TAG}",
  "echo x > /dev/shm/crystal-sandbox-{TAG}",
  "echo x > /tmp/crystal-sandbox-{TAG}",
  "exec 3<>/dev/tcp/127.0.0.1/{PORT} && echo hi >&3"
]

const PRIVATE_TMP_TWISTS = new Set([
  "cd .. && touch beside-workspace.txt",
  "echo x > /var/tmp/crystal-sandbox-{TAG}",
  "echo x > /dev/shm/crystal-sandbox-{TAG}",
  "echo x > /tmp/crystal-sandbox-{TAG}"
])

/** Dozens of process starts: on a loaded machine they take far longer than vitest's default 20 s. */
const HEAVY_MS = 240_000

const run = (command: string, options: { cwd: string; env?: NodeJS.ProcessEnv }) => {
  const result = spawnSync("/bin/bash", ["-c", command], { cwd: options.cwd, env: options.env ?? process.env, encoding: "utf8" })
  if (result.status !== 0) throw new Error(`${command}: ${result.stderr}`)
}

let template: string | undefined

/** A git repository with a commit and an uncommitted change, in a fresh test workspace (copied from one made once). */
const makeRepository = async (): Promise<Workspace> => {
  const ws = await makeWorkspace()
  if (template === undefined) {
    template = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-sandbox-repo-"))
    fs.mkdirSync(path.join(template, "src"))
    fs.writeFileSync(path.join(template, "a.txt"), "alpha\nbeta\n")
    fs.writeFileSync(path.join(template, "notes.md"), "alpha\ngamma\n")
    fs.writeFileSync(path.join(template, "src", "b.ts"), "export const b = 1\n")
    run("git init -q && git -c user.name=t -c user.email=t@t add . && git -c user.name=t -c user.email=t@t commit -qm first", { cwd: template })
    fs.appendFileSync(path.join(template, "notes.md"), "delta\n")
  }
  fs.cpSync(template, ws.workspace, { recursive: true })
  return ws
}

/** Everything about a tree that a write could change: names, types, modes, sizes, mtimes and bytes. */
const snapshot = (root: string): Record<string, string> => {
  const out: Record<string, string> = {}
  const walk = (dir: string): void => {
    for (const name of fs.readdirSync(dir).sort()) {
      const full = path.join(dir, name)
      const stat = fs.lstatSync(full)
      const rel = path.relative(root, full)
      if (stat.isDirectory()) {
        out[rel] = `dir ${stat.mode.toString(8)} ${stat.mtimeMs}`
        walk(full)
      } else if (stat.isSymbolicLink()) out[rel] = `link ${fs.readlinkSync(full)}`
      else out[rel] = `file ${stat.mode.toString(8)} ${stat.size} ${stat.mtimeMs} ${crypto.createHash("sha256").update(fs.readFileSync(full)).digest("hex")}`
    }
  }
  walk(root)
  return out
}

const tag = `${process.pid}-${crypto.randomBytes(4).toString("hex")}`
const probes = [
  path.join(os.homedir(), `.crystal-sandbox-${tag}`),
  `/var/tmp/crystal-sandbox-${tag}`,
  `/dev/shm/crystal-sandbox-${tag}`,
  `/tmp/crystal-sandbox-${tag}`
]

let connections = 0
let port = 0
const server = net.createServer((socket) => {
  connections++
  socket.destroy()
})

beforeAll(async () => {
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as net.AddressInfo).port
})
afterAll(async () => {
  for (const probe of probes) fs.rmSync(probe, { force: true })
  if (template !== undefined) fs.rmSync(template, { recursive: true, force: true })
  await new Promise<void>((resolve) => server.close(() => resolve()))
})

/** What the test watches; equal before and after a sandboxed run. */
const observe = (ws: Workspace) => ({
  workspace: snapshot(ws.workspace),
  around: fs.readdirSync(path.dirname(ws.workspace)).sort(),
  probes: probes.filter((probe) => fs.existsSync(probe)),
  connections
})

const fill = (twist: string): string => twist.replaceAll("{TAG}", tag).replaceAll("{PORT}", String(port))

const bashIn = async (ws: Workspace, command: string, sandboxed: boolean): Promise<string> => {
  const context: ToolContext = sandboxed ? { ...ws.context, spillDir: ws.spillDir, sandbox: "read-only" } : ws.context
  return Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const background = yield* makeBackgroundBash({ timeoutSeconds: null })
        const tools = makeBashTools({ background, bashTimeoutSeconds: 30, classifyCommand: classifyForTest })
        return (yield* runTool(tools.bash, { command }, context)).text
      })
    )
  )
}

const body = (text: string): string => text.slice(text.indexOf("\n") + 1)

/** Lets the TCP listener count a connection that was made just before. */
const settle = () => new Promise((resolve) => setTimeout(resolve, 100))

describe.skipIf(!usable)(`the OS sandbox stops every write of an auto-approved command${skipped}`, () => {
  it("holds at least 35 controls, each auto-approved as a read inside the workspace by the real classifier", async () => {
    const ws = await makeRepository()
    expect(CONTROLS.length).toBeGreaterThanOrEqual(35)
    const notAllowed: Array<string> = []
    for (const command of CONTROLS) {
      const classification = await Effect.runPromise(classifyBash(command, ws.context.fence))
      const allowed = decide("default", { classification, builtinEdit: false })._tag === "Allow" && classification.authority === "read"
      if (!allowed) notAllowed.push(`${command}: ${classification.summary}`)
    }
    expect(notAllowed).toEqual([])
  })

  it("every twist writes (or connects) when run without the sandbox", async () => {
    const unstopped: Array<string> = []
    for (const twist of TWISTS) {
      const ws = await makeRepository()
      const before = observe(ws)
      await bashIn(ws, `{ ${fill(twist)}; } >/dev/null 2>&1`, false)
      await settle()
      const after = observe(ws)
      for (const probe of probes) fs.rmSync(probe, { force: true })
      if (JSON.stringify(after) === JSON.stringify(before)) unstopped.push(twist)
    }
    expect(unstopped).toEqual([])
  }, HEAVY_MS)

  it("runs each control with its normal output, and stops the twist paired with it", async () => {
    const ws = await makeRepository()
    for (const [index, command] of CONTROLS.entries()) {
      // Taken after the bare run: `git status` itself refreshes .git/index when it may.
      const bare = await bashIn(ws, command, false)
      const before = observe(ws)
      expect(await bashIn(ws, command, true), command).toBe(bare)
      const twist = fill(TWISTS[index % TWISTS.length] ?? "")
      // The status line is the twist's: the output below it must be the control's.
      expect(body(await bashIn(ws, `${command}; { ${twist}; } >/dev/null 2>&1`, true)), `${command}; ${twist}`).toBe(body(bare))
      await settle()
      expect(observe(ws), `${command}; ${twist}`).toEqual(before)
    }
  }, HEAVY_MS)

  it("stops every twist on its own, and the failure is the file system's or the network's", async () => {
    const ws = await makeRepository()
    const before = observe(ws)
    for (const twist of TWISTS) {
      const text = await bashIn(ws, fill(twist), true)
      const expectFailure = !PRIVATE_TMP_TWISTS.has(twist)
      await settle()
      expect(observe(ws), twist).toEqual(before)
      // Writes to the private /tmp and /var/tmp succeed (the test workspace lies in /tmp, so `cd ..` lands there); everything else fails.
      if (expectFailure) expect(text, twist).not.toMatch(/^exit 0\n/)
    }
  }, HEAVY_MS)

  it("keeps a private /tmp and the spill folder writable", async () => {
    const ws = await makeRepository()
    const text = await bashIn(ws, `echo scratch > /tmp/crystal-sandbox-${tag} && cat /tmp/crystal-sandbox-${tag} && echo kept > ${ws.spillDir}/note.txt`, true)
    expect(text).toBe("exit 0\nscratch")
    expect(fs.existsSync(`/tmp/crystal-sandbox-${tag}`)).toBe(false)
    expect(fs.readFileSync(path.join(ws.spillDir, "note.txt"), "utf8")).toBe("kept\n")
  })

  it("shows only the sandbox's own processes in /proc: not this process, nor its environment", async () => {
    const ws = await makeRepository()
    const probe = `[ -e /proc/${process.pid}/environ ] && echo visible || echo hidden`
    expect(await bashIn(ws, probe, false)).toBe("exit 0\nvisible")
    expect(await bashIn(ws, probe, true)).toBe("exit 0\nhidden")
  })
})
