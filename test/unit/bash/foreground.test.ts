import { spawnSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { afterEach, describe, expect, it } from "vitest"
import { makeBackgroundBash } from "../../../src/bash/background.ts"
import { runForeground } from "../../../src/bash/foreground.ts"
import { makeBashTools, type BashToolsOptions, type BashTools } from "../../../src/tools/bash-tools.ts"
import type { ToolOutput } from "../../../src/tools/tool.ts"
import { alive, classifyForTest, eventually, makeWorkspace, pidsIn, reap, runTool, type Workspace } from "./support.ts"
import { noSecrets } from "../../../src/secrets/secrets.ts"

const leftovers = new Set<number>()
afterEach(() => {
  reap(leftovers)
  leftovers.clear()
})

type Options = Partial<Omit<BashToolsOptions, "background" | "classifyCommand">>

/** Runs `body` with the shell tools of a fresh session scope. */
const withTools = <A>(options: Options, body: (tools: BashTools) => Effect.Effect<A, unknown>): Promise<A> =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const background = yield* makeBackgroundBash({ timeoutSeconds: null, graceMs: 300 })
        const tools = makeBashTools({ background, bashTimeoutSeconds: 30, classifyCommand: classifyForTest, graceMs: 300, ...options })
        return yield* body(tools)
      })
    ) as Effect.Effect<A>
  )

const bash = async (ws: Workspace, command: string, options: Options = {}): Promise<ToolOutput> =>
  withTools(options, (tools) => runTool(tools.bash, { command }, ws.context))

const bashText = async (ws: Workspace, command: string, options: Options = {}): Promise<string> => (await bash(ws, command, options)).text

const hasSetsid = spawnSync("setsid", ["--version"]).status === 0

describe("bash (foreground)", () => {
  it("runs in the workspace and reports `exit 0` first", async () => {
    const ws = await makeWorkspace()
    await fs.writeFile(path.join(ws.workspace, "marker.txt"), "here")
    expect(await bashText(ws, "pwd; cat marker.txt; echo")).toBe(`exit 0\n${ws.workspace}\nhere`)
    expect(await bashText(ws, "true")).toBe("exit 0\n(no output)")
  })

  it("reports a non-zero exit as a normal result whose text starts with the status", async () => {
    const ws = await makeWorkspace()
    const result = await bash(ws, "echo building; echo 'error: oops' >&2; exit 3")
    expect(result.text).toBe("exit 3\nbuilding\nerror: oops")
    expect(result.isError).toBeUndefined()
    expect(await bashText(ws, "kill -KILL $$")).toBe("killed by SIGKILL\n(no output)")
    expect(await bashText(ws, "echo 'unterminated")).toMatch(/^exit 2\n.*unexpected EOF/)
  })

  it("interleaves stdout and stderr in the order they were written", async () => {
    const ws = await makeWorkspace()
    const text = await bashText(ws, "for i in 1 2 3; do echo out$i; echo err$i >&2; done; printf 'no newline' >&2")
    expect(text).toBe("exit 0\nout1\nerr1\nout2\nerr2\nout3\nerr3\nno newline")
  })

  it("shows lines as a terminal would leave them: no colour codes, the last state of a progress bar", async () => {
    const ws = await makeWorkspace()
    const text = await bashText(ws, "printf '\\033[31mred\\033[0m\\r\\n'; printf 'progress 10%%\\rprogress 100%%\\n'")
    expect(text).toBe("exit 0\nred\nprogress 100%")
  })

  it("closes stdin: a read sees end of file at once", async () => {
    const ws = await makeWorkspace()
    expect(await bashText(ws, 'cat; read line; echo "read=$?"')).toBe("exit 0\nread=1")
  })

  it("on timeout kills the whole process group, grandchildren included", async () => {
    const ws = await makeWorkspace()
    const started = Date.now()
    const text = await bashText(ws, "echo $$; sleep 1000 & echo $!; (sleep 1000 & echo $!; wait) & sleep 1000 & echo $!; wait", {
      bashTimeoutSeconds: 0.5
    })
    const pids = pidsIn(text)
    pids.forEach((pid) => leftovers.add(pid))
    expect(text.split("\n")[0]).toBe("timed out after 0.5 s; its processes were killed")
    expect(pids).toHaveLength(4)
    expect(pids.filter(alive)).toEqual([])
    expect(Date.now() - started).toBeLessThan(3000)
  })

  it("after the grace period SIGKILLs a command that ignores SIGTERM", async () => {
    const ws = await makeWorkspace()
    const started = Date.now()
    const text = await bashText(ws, "trap '' TERM; echo $$; sleep 1000 & echo $!; while :; do sleep 0.05; done", { bashTimeoutSeconds: 0.3, graceMs: 400 })
    const pids = pidsIn(text)
    pids.forEach((pid) => leftovers.add(pid))
    expect(pids).toHaveLength(2)
    expect(pids.filter(alive)).toEqual([])
    expect(Date.now() - started).toBeGreaterThanOrEqual(700)
  })

  it.skipIf(!hasSetsid || process.platform !== "linux")("also kills children that left the group (setsid, set -m)", async () => {
    const ws = await makeWorkspace()
    const text = await bashText(ws, "setsid sleep 1000 & echo $!; set -m; sleep 1000 & echo $!; set +m; wait", { bashTimeoutSeconds: 0.5 })
    const pids = pidsIn(text)
    pids.forEach((pid) => leftovers.add(pid))
    expect(pids).toHaveLength(2)
    expect(pids.filter(alive)).toEqual([])
  })

  it("cancellation (interrupting the effect) kills the group", async () => {
    const ws = await makeWorkspace()
    const pidFile = path.join(ws.workspace, "pids")
    const readPids = async () => pidsIn(await fs.readFile(pidFile, "utf8").catch(() => ""))
    await withTools({}, (tools) =>
      Effect.gen(function* () {
        const fiber = yield* Effect.fork(
          runTool(tools.bash, { command: "echo $$ > pids; sleep 1000 & echo $! >> pids; (sleep 1000 & echo $! >> pids; wait) & wait" }, ws.context)
        )
        const ready = yield* Effect.promise(() => eventually(async () => (await readPids()).length === 3))
        expect(ready).toBe(true)
        const pids = yield* Effect.promise(readPids)
        pids.forEach((pid) => leftovers.add(pid))
        expect(pids.filter(alive)).toHaveLength(3)
        const started = Date.now()
        yield* Fiber.interrupt(fiber)
        expect(pids.filter(alive)).toEqual([])
        expect(Date.now() - started).toBeLessThan(1000)
      })
    )
  })

  it("kills what the command left running once it exits", async () => {
    const ws = await makeWorkspace()
    const text = await bashText(ws, "sleep 1000 >/dev/null 2>&1 & echo $!; sleep 1000 & echo $!")
    const pids = pidsIn(text)
    pids.forEach((pid) => leftovers.add(pid))
    expect(text.split("\n")[0]).toBe("exit 0")
    expect(pids).toHaveLength(2)
    expect(pids.filter(alive)).toEqual([])
  })

  it("caps the output to its head and tail and spills the full text", async () => {
    const ws = await makeWorkspace()
    const text = await bashText(ws, "seq 1 5000; echo 'FAILED: the end' >&2; exit 1")
    const lines = text.split("\n")
    expect(lines[0]).toBe("exit 1")
    expect(lines.slice(1, 101)).toEqual(Array.from({ length: 100 }, (_, i) => String(i + 1)))
    const note = lines[101] ?? ""
    expect(note).toMatch(/^\[… 4601 lines \(.+\) not shown; full output saved to (.+) — read it with offset=101 …\]$/)
    expect(lines.slice(102)).toEqual([...Array.from({ length: 299 }, (_, i) => String(i + 4702)), "FAILED: the end"])
    const file = /saved to (.+) — read/.exec(note)?.[1] ?? ""
    expect(ws.spilled.get(file)).toBe(Array.from({ length: 5000 }, (_, i) => `${i + 1}\n`).join("") + "FAILED: the end\n")
    expect(file.startsWith(ws.spillDir)).toBe(true)
  })

  it("caps by bytes and cuts very long lines", async () => {
    const ws = await makeWorkspace()
    const text = await bashText(ws, "head -c 5000 /dev/zero | tr '\\0' a; echo; echo short")
    const lines = text.split("\n")
    expect(lines[1]).toBe(`${"a".repeat(2000)}… [+3000 chars]`)
    expect(lines[2]).toBe("short")
    expect(lines[3]).toMatch(/^\[… lines longer than 2000 characters were cut; full output saved to .+ …\]$/)
    const bytesText = await bashText(ws, "for i in $(seq 1 200); do printf '%0200d\\n' $i; done")
    expect(Buffer.byteLength(bytesText)).toBeLessThan(33 * 1024)
    expect(bytesText).toMatch(/\[… \d+ lines \(.+\) not shown; full output saved to .+ — read it with offset=\d+ …\]/)
    expect(bytesText.endsWith(`${"0".repeat(197)}200`)).toBe(true)
  })

  it("keeps memory bounded for a huge output: the spill holds the head and tail", async () => {
    const ws = await makeWorkspace()
    const text = await bashText(ws, "seq 1 200000", { captureBytes: 64 * 1024 })
    expect(text.endsWith("\n199999\n200000")).toBe(true)
    const spilled = [...ws.spilled.values()][0] ?? ""
    expect(spilled.startsWith("1\n2\n3\n")).toBe(true)
    expect(spilled).toMatch(/\n\[… \d+ bytes of output dropped here …\]\n/)
    expect(spilled.endsWith("199999\n200000\n")).toBe(true)
    expect(spilled.length).toBeLessThan(70 * 1024)
  })

  it("fails with a clear tool error when the command cannot start", async () => {
    const ws = await makeWorkspace()
    await expect(withTools({}, (tools) => Effect.flip(runTool(tools.bash, { command: "  " }, ws.context)))).resolves.toMatchObject({
      message: "command is empty"
    })
    await fs.rm(ws.workspace, { recursive: true })
    const error = await withTools({}, (tools) => Effect.flip(runTool(tools.bash, { command: "true" }, ws.context)))
    expect(error.message).toBe(`could not start /bin/bash: the directory ${ws.workspace} does not exist`)
  })

  it("classifies with the injected command classifier", async () => {
    const ws = await makeWorkspace()
    const classification = await withTools({}, (tools) => tools.bash.classify({ command: "npm test" }, ws.context))
    expect(classification).toMatchObject({ authority: "execute", summary: "run `npm test`", grantKey: "bash:npm test" })
  })

  it("waits for the drain period only when leftover processes hold the pipes", async () => {
    const ws = await makeWorkspace()
    const timed = async (command: string) => {
      const started = Date.now()
      const result = await Effect.runPromise(runForeground({ secrets: noSecrets, command, cwd: ws.workspace, timeoutSeconds: 30, drainMs: 1500, graceMs: 300 }))
      return { result, ms: Date.now() - started }
    }
    const quick = await timed("echo fine")
    expect(quick.result.output).toBe("fine\n")
    expect(quick.ms).toBeLessThan(1000)
    const held = await timed("sleep 1000 & echo $!")
    pidsIn(held.result.output).forEach((pid) => leftovers.add(pid))
    expect(held.ms).toBeGreaterThanOrEqual(1500)
    expect(pidsIn(held.result.output).filter(alive)).toEqual([])
  })
})
