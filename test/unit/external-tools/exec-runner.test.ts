import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import { describe, expect, it } from "vitest"
import { argvFlags } from "../../../src/external-tools/exec-tool.ts"
import type { ExecToolDeclaration } from "../../../src/external-tools/manifest.ts"
import { call, contextFor, load, makePlace, toolNamed, writeSet } from "./support.ts"

const isAlive = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch {
    return false
  }
}

const zombieOrGone = async (pid: number): Promise<boolean> => {
  if (!isAlive(pid)) return true
  const stat = await fs.readFile(`/proc/${pid}/stat`, "utf8").catch(() => "")
  return stat === "" || /\) [ZX] /.test(stat)
}

const tool = (name: string, command: ReadonlyArray<string>, extra: Record<string, unknown> = {}) => ({
  name,
  description: `${name} tool`,
  parameters: { type: "object", properties: { text: { type: "string" }, n: { type: "integer" }, flag: { type: "boolean" } } },
  command,
  ...extra
})

describe("the exec runner", () => {
  it("maps scalar properties to flags in the argv map's order: true is the bare flag, false and absent omit it", () => {
    const declaration = { name: "t", argv: [["text", "--text"], ["n", "-n"], ["flag", "--flag"], ["off", "--off"]] } as unknown as ExecToolDeclaration
    expect(argvFlags(declaration, { text: "a b", n: 3, flag: true, off: false })).toEqual(["--text", "a b", "-n", "3", "--flag"])
    expect(argvFlags(declaration, {})).toEqual([])
    expect(argvFlags(declaration, { text: ["x"] })).toMatch(/"text" is mapped to --text but is not a string, number or boolean/)
  })

  it("passes the arguments as JSON on stdin (then closes it), runs in the workspace root with the CRYSTAL_* variables, never through a shell", async () => {
    const place = await makePlace()
    await writeSet(place, "home", "probe", {
      "tools.json": {
        tools: [
          tool("probe", ["/bin/sh", "./probe.sh", "$HOME;", "`x`"], { argv: { text: "--text" } }),
          tool("nostdin", ["/bin/sh", "-c", "cat; echo end"], { stdin: false })
        ]
      },
      "probe.sh": 'printf "args:%s|" "$@"; printf "cwd:%s|" "$PWD"; printf "stdin:%s|" "$(cat)"; env | grep ^CRYSTAL_ | grep -v CRYSTAL_CONTAIN | sort\n'
    })
    const control = await load(place, { approval: "edit" })
    const context = contextFor(place)
    const output = await call(toolNamed(control, "probe"), { text: "hi there", n: 2 }, context)
    const workspace = await fs.realpath(place.workspace)
    expect(output.isError).toBeUndefined()
    expect(output.text).toContain(`args:$HOME;|args:\`x\`|args:--text|args:hi there|cwd:${workspace}|stdin:{"text":"hi there","n":2}|`)
    expect(output.text).toContain(`CRYSTAL_APPROVAL=edit\nCRYSTAL_PROJECT_DATA=${path.join(workspace, ".crystal", "tool-data", "probe")}\nCRYSTAL_SESSION=session-1\nCRYSTAL_TOOL_DATA=${path.join(place.home, "tool-data", "probe")}\nCRYSTAL_WORKSPACE=${workspace}`)
    await expect(fs.stat(path.join(place.home, "tool-data", "probe"))).resolves.toBeTruthy()
    expect((await call(toolNamed(control, "nostdin"), {}, context)).text).toBe("end")
  })

  it("a non-zero exit is an error result with stderr's tail; a missing program says so", async () => {
    const place = await makePlace()
    await writeSet(place, "home", "fails", {
      "tools.json": { tools: [tool("fails", ["/bin/sh", "-c", "echo out; echo 'bad input' >&2; exit 3"]), tool("missing", ["no-such-program-xyz"])] }
    })
    const control = await load(place)
    const context = contextFor(place)
    expect(await call(toolNamed(control, "fails"), {}, context)).toEqual({ text: "fails failed (exit 3):\nbad input", isError: true })
    const missing = await call(toolNamed(control, "missing"), {}, context)
    expect(missing.isError).toBe(true)
    expect(missing.text).toMatch(/could not start no-such-program-xyz: no-such-program-xyz was not found/)
  })

  it("caps long output like bash and spills the whole text", async () => {
    const place = await makePlace()
    await writeSet(place, "home", "long", { "tools.json": { tools: [tool("long", ["/bin/sh", "-c", "seq 1 5000"])] } })
    const spilled: Array<string> = []
    const output = await call(toolNamed(await load(place), "long"), {}, contextFor(place, spilled))
    expect(output.text).toMatch(/^1\n2\n/)
    expect(output.text).toMatch(/lines .* not shown; full output saved to \/tmp\/spilled.txt/)
    expect(output.text).toMatch(/\n5000$/)
    expect(spilled[0]?.split("\n").length).toBe(5001)
  })

  it("a timeout kills the whole process tree, grandchildren included", async () => {
    const place = await makePlace()
    const pidFile = path.join(place.workspace, "pids")
    await writeSet(place, "home", "slow", {
      "tools.json": { tools: [tool("slow", ["/bin/sh", "./slow.sh"], { timeoutSeconds: 1 })] },
      "slow.sh": `sleep 300 & echo $! > ${pidFile}; sh -c 'sleep 300' & echo $! >> ${pidFile}; wait\n`
    })
    const output = await call(toolNamed(await load(place), "slow"), {}, contextFor(place))
    expect(output).toMatchObject({ isError: true })
    expect(output.text).toMatch(/^slow timed out after 1 s; its processes were killed/)
    const pids = (await fs.readFile(pidFile, "utf8")).trim().split("\n").map(Number)
    expect(pids.length).toBe(2)
    for (const pid of pids) expect(await zombieOrGone(pid)).toBe(true)
  })

  it("cancelling the call (a cancelled turn) kills the tree too", async () => {
    const place = await makePlace()
    const pidFile = path.join(place.workspace, "pids")
    await writeSet(place, "home", "slow", {
      "tools.json": { tools: [tool("slow", ["/bin/sh", "./slow.sh"])] },
      "slow.sh": `sleep 300 & echo $! > ${pidFile}; wait\n`
    })
    const slow = toolNamed(await load(place), "slow")
    const fiber = Effect.runFork(slow.run({} as never, contextFor(place)))
    for (let i = 0; i < 200 && !(await fs.stat(pidFile).then(() => true, () => false)); i++) await new Promise((resolve) => setTimeout(resolve, 25))
    const pid = Number((await fs.readFile(pidFile, "utf8")).trim())
    expect(isAlive(pid)).toBe(true)
    await Effect.runPromise(Fiber.interrupt(fiber))
    expect(await zombieOrGone(pid)).toBe(true)
  })

  it('"output": "content" without images is its text; stdout that is not the content JSON is a clear error', async () => {
    const place = await makePlace()
    await writeSet(place, "home", "content", {
      "tools.json": {
        tools: [
          tool("good", ["/bin/sh", "-c", `echo '{"text": "hello"}'`], { output: "content" }),
          tool("bad", ["/bin/sh", "-c", "echo plain words"], { output: "content" })
        ]
      }
    })
    const control = await load(place)
    expect(await call(toolNamed(control, "good"), {}, contextFor(place))).toEqual({ text: "hello" })
    expect((await call(toolNamed(control, "bad"), {}, contextFor(place))).text).toMatch(/bad declares "output": "content" but its stdout is not JSON/)
  })
})
