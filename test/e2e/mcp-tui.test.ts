/**
 * MCP servers in the interactive UI (tmux): the approval dialog of an MCP call, /mcp and /mcp
 * restart; a call's progress on its live line; an elicitation dialog held open past the call's
 * toolTimeoutSeconds; an elicitation message that tries to drive the terminal.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { crystalBinary, makeSandbox, writeLocalConfig } from "../support/crystal.ts"
import { startFakeLlm, type RecordedRequest, type Reply } from "../support/fake-llm/server.ts"
import { everythingServer, probeServer } from "../support/mcp/servers.ts"
import { openTerminal, tmuxAvailable } from "../support/tmux.ts"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const isTitleRequest = (request: RecordedRequest) => JSON.stringify(request.body).includes("Name this coding session")
const titleOr = (reply: Reply): Reply => (request) => (isTitleRequest(request) ? { text: "MCP" } : typeof reply === "function" ? reply(request) : reply)

/** A session with server-everything (with `settings`) against the fake model, in tmux. */
const start = async (settings: Record<string, unknown> = {}, args: ReadonlyArray<string> = [], name = "everything") => {
  const sandbox = await makeSandbox()
  const fake = await startFakeLlm()
  cleanups.push(() => fake.close())
  const file = await writeLocalConfig(sandbox, fake.url)
  const config = JSON.parse(await fs.readFile(file, "utf8")) as Record<string, unknown>
  await fs.writeFile(
    path.join(sandbox.home, "config.json"),
    JSON.stringify({ ...config, mcpServers: { [name]: { command: process.execPath, args: [everythingServer, "stdio"], ...settings } } })
  )
  const terminal = openTerminal([crystalBinary, ...args], { cwd: sandbox.workspace, env: { ...sandbox.env, TERM: "xterm" } })
  cleanups.push(() => terminal.close())
  await terminal.waitFor(/approval \w+ · local\/test-model/)
  return { fake, terminal }
}

describe.runIf(tmuxAvailable())("MCP servers in a terminal session", () => {
  it("asks before an MCP call naming server, tool and arguments; /mcp shows the server; /mcp restart starts it again", async () => {
    const { fake, terminal } = await start()
    fake.script([titleOr({ toolCalls: [{ name: "mcp__everything__get-sum", arguments: { a: 2, b: 3 } }] }), titleOr({ text: "The sum is 5." }), titleOr({ text: "MCP" })])
    terminal.type("add two and three")
    terminal.press("Enter")
    const dialog = await terminal.waitFor(/Allow once/)
    expect(dialog).toMatch(/mcp__everything__get-sum/)
    expect(dialog).toContain('MCP server everything: get-sum {"a":2,"b":3}')
    terminal.press("Enter")
    await terminal.waitFor(/The sum is 5\./)
    terminal.type("/mcp")
    terminal.press("Enter")
    const status = await terminal.waitFor(/everything ready over stdio · \d+ tools · config\.json · /)
    expect(status).toMatch(/get-sum/)
    terminal.type("/mcp restart everything")
    terminal.press("Enter")
    await terminal.waitFor(/MCP server everything restarted: \d+ tools \(stdio\)\./)
  })

  it("shows a running call's progress on its live line, under the call's line, as the server reports it", async () => {
    const { fake, terminal } = await start({}, ["--approval", "full"])
    // Three steps of 2 s: a progress notification at 2 s and at 4 s, the result at 6 s.
    fake.script([
      titleOr({ toolCalls: [{ name: "mcp__everything__trigger-long-running-operation", arguments: { duration: 6, steps: 3 } }] }),
      titleOr({ text: "It finished." }),
      titleOr({ text: "MCP" })
    ])
    terminal.type("run the long operation")
    terminal.press("Enter")
    await terminal.waitFor(/running mcp__everything__trigger-long-running-operation…/)
    const first = await terminal.waitFor(/running mcp__everything__trigger-long-running-operation · 1\/3/)
    expect(first).toMatch(/● mcp__everything__trigger-long-running-operation \{"duration":6,"steps":3\}\n.*running mcp__everything__trigger-long-running-operation · 1\/3/)
    await terminal.waitFor(/running mcp__everything__trigger-long-running-operation · 2\/3/)
    const done = await terminal.waitFor(/It finished\./)
    expect(done).toMatch(/⎿ ok · 1 line/)
    // The live line went with the call: no progress is left on the screen.
    expect(done).not.toMatch(/running mcp__everything/)
  })

  it("an elicitation dialog open longer than the call's toolTimeoutSeconds does not cancel the call", async () => {
    const { fake, terminal } = await start({ toolTimeoutSeconds: 1 }, ["--approval", "full"])
    fake.script([
      titleOr({ toolCalls: [{ name: "mcp__everything__trigger-elicitation-request", arguments: {} }] }),
      titleOr({ text: "You declined, fine." }),
      titleOr({ text: "MCP" })
    ])
    terminal.type("ask me something")
    terminal.press("Enter")
    await terminal.waitFor(/Please provide inputs for the following fields/)
    // Twice the call's time, with the dialog open.
    await new Promise((resolve) => setTimeout(resolve, 2500))
    terminal.press("Escape")
    const screen = await terminal.waitFor(/You declined, fine\./)
    expect(screen).toMatch(/⎿ ok · /)
    const second = JSON.stringify(fake.requests.filter((request) => !isTitleRequest(request))[1]?.body)
    expect(second).toContain("User declined to provide the requested information")
    expect(second).not.toContain("toolTimeoutSeconds")
  })

  it("an elicitation message with OSC 0 (title), OSC 52 (clipboard) and CSI (erase) is drawn as symbols in the dialog; the title stays", async () => {
    const { fake, terminal } = await start({ args: [probeServer] }, ["--approval", "full"], "probe")
    const titleBefore = terminal.title()
    const message = "Who\x1b]0;pwned\x07 \x1b]52;c;cHduZWQ=\x07 \x1b[2J\x1b[Hasks?"
    fake.script([titleOr({ toolCalls: [{ name: "mcp__probe__elicit", arguments: { message } }] }), titleOr({ text: "You declined, fine." }), titleOr({ text: "MCP" })])
    terminal.type("ask me something")
    terminal.press("Enter")
    const dialog = await terminal.waitFor(/Who␛\]0;pwned␇ ␛\]52;c;cHduZWQ=␇ ␛\[2J␛\[Hasks\?/)
    // The screen was not erased: the prompt is still above the dialog.
    expect(dialog).toContain("ask me something")
    expect(terminal.title()).toBe(titleBefore)
    expect(terminal.title()).not.toContain("pwned")
    terminal.press("Escape")
    await terminal.waitFor(/You declined, fine\./)
    expect(terminal.title()).not.toContain("pwned")
  })
})
