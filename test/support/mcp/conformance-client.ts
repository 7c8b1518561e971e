/**
 * The client command the MCP conformance suite runs: `bun conformance-client.ts <server-url>`, with
 * the scenario's name in MCP_CONFORMANCE_SCENARIO (the suite's runner sets both). It drives the
 * compiled binary as a user would: a temporary CRYSTAL_HOME whose config.json names the suite's
 * server as `conformance`, a temporary workspace, and one turn of a fake model — `crystal run
 * --approval full`, or, for a scenario with dialogs (conformance.ts), a terminal session in tmux
 * whose dialogs are accepted as offered. The model is the fake server at CRYSTAL_CONFORMANCE_LLM
 * (its caller scripts it); without that variable the client starts its own, scripted with the
 * scenario's replies, so the suite runs by hand too (docs/mcp.md). Exits with Crystal's exit code.
 */
import { spawn } from "node:child_process"
import { rmSync } from "node:fs"
import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import { startFakeLlm, type FakeLlm } from "../fake-llm/server.ts"
import { openTerminal } from "../tmux.ts"
import { conformanceModel, conformanceScenarios, finalText, type ConformanceScenario } from "./conformance.ts"

const crystal = path.resolve(import.meta.dirname, "..", "..", "..", "dist", "crystal")

/**
 * What to undo when the suite's runner stops this client (it sends SIGTERM after its --timeout):
 * the terminal session, Crystal, the temporary directory.
 */
const onStop: Array<() => void> = []
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.on(signal, () => {
    for (const stop of onStop.splice(0).reverse()) stop()
    process.exit(signal === "SIGTERM" ? 143 : 130)
  })
}

interface Place {
  readonly workspace: string
  readonly env: Record<string, string>
}

const headless = (scenario: ConformanceScenario, place: Place): Promise<number> =>
  new Promise((resolve, reject) => {
    // stdin is not the suite's pipe: `crystal run` would read a prompt from it.
    const child = spawn(crystal, ["run", "--format", "json", "--approval", "full", scenario.prompt], { cwd: place.workspace, env: place.env, stdio: ["ignore", "inherit", "inherit"] })
    onStop.push(() => child.kill("SIGTERM"))
    child.on("error", reject)
    child.on("close", (code, signal) => resolve(code ?? (signal === null ? 1 : 128)))
  })

const inTerminal = async (scenario: ConformanceScenario, place: Place): Promise<number> => {
  const terminal = openTerminal([crystal, "--approval", "full"], { cwd: place.workspace, env: { ...place.env, TERM: "xterm" } })
  onStop.push(() => terminal.close())
  try {
    await terminal.waitFor(/approval full · local\/test-model/, 20_000)
    terminal.type(scenario.prompt)
    terminal.press("Enter")
    for (const dialog of scenario.dialogs ?? []) {
      const screen = await terminal.waitFor(dialog, 20_000)
      process.stdout.write(`--- screen at ${dialog}\n${screen}\n`)
      terminal.press("Enter")
    }
    const done = finalText(scenario)
    const screen = await terminal.waitFor(new RegExp(done.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")), 20_000)
    process.stdout.write(`--- screen at the end of the turn\n${screen}\n`)
    terminal.press("C-d")
    const exit = await terminal.waitFor(/^EXIT=\d+$/m, 20_000)
    return Number(/^EXIT=(\d+)$/m.exec(exit)?.[1])
  } finally {
    terminal.close()
  }
}

const main = async (): Promise<number> => {
  const url = process.argv.at(-1)
  const name = process.env["MCP_CONFORMANCE_SCENARIO"] ?? ""
  const scenario = conformanceScenarios[name]
  if (url === undefined || !/^https?:\/\//.test(url) || scenario === undefined) {
    process.stderr.write(`usage: MCP_CONFORMANCE_SCENARIO=<${Object.keys(conformanceScenarios).join("|")}> bun conformance-client.ts <server-url>\n`)
    return 2
  }
  const root = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "crystal-conformance-")))
  onStop.push(() => rmSync(root, { recursive: true, force: true }))
  let own: FakeLlm | undefined
  try {
    let llm = process.env["CRYSTAL_CONFORMANCE_LLM"]
    if (llm === undefined || llm === "") {
      own = await startFakeLlm()
      const model = conformanceModel()
      model.load(scenario)
      own.script(Array.from({ length: scenario.replies.length + 1 }, () => model.reply))
      llm = own.url
    }
    const home = path.join(root, "home")
    const workspace = path.join(root, "workspace")
    await fs.mkdir(home)
    await fs.mkdir(workspace)
    const config = {
      model: "local/test-model",
      providers: { local: { protocol: "openai-chat", baseURL: `${llm}/v1`, models: { "test-model": { contextWindow: 32768 } } } },
      mcpServers: { conformance: { url } }
    }
    await fs.writeFile(path.join(home, "config.json"), JSON.stringify(config, null, 2))
    const env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: root, CRYSTAL_HOME: home, NO_COLOR: "1" }
    return await (scenario.dialogs === undefined ? headless(scenario, { workspace, env }) : inTerminal(scenario, { workspace, env }))
  } finally {
    await own?.close()
    await fs.rm(root, { recursive: true, force: true })
  }
}

main().then(
  (code) => process.exit(code),
  (error: unknown) => {
    process.stderr.write(`conformance-client: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
    process.exit(1)
  }
)
