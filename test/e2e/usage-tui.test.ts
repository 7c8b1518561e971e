/**
 * Usage in the interactive UI of the compiled binary (tmux): the session's cost in the status line
 * and /usage, with the title request counted in the session's total.
 */
import { afterEach, describe, expect, it } from "vitest"
import { crystalBinary, makeSandbox, writeLocalConfig } from "../support/crystal.ts"
import { startFakeLlm, type RecordedRequest, type Reply } from "../support/fake-llm/server.ts"
import { openTerminal, tmuxAvailable } from "../support/tmux.ts"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const isTitleRequest = (request: RecordedRequest) => JSON.stringify(request.body).includes("Name this coding session")
const title: Reply = { text: "Greeting", usage: { inputTokens: 5_000, outputTokens: 100 } }
const answer: Reply = { text: "Hello there.", usage: { inputTokens: 20_000, outputTokens: 2_000, cachedInputTokens: 10_000 } }
/** The answer and the title request may race: each request gets its own reply. */
const either: Reply = (request) => (isTitleRequest(request) ? title : answer)

describe.runIf(tmuxAvailable())("usage in a terminal", () => {
  const start = async (pricing: Record<string, unknown> | undefined) => {
    const sandbox = await makeSandbox()
    const fake = await startFakeLlm()
    cleanups.push(() => fake.close())
    await writeLocalConfig(sandbox, fake.url, pricing === undefined ? {} : { pricing })
    const terminal = openTerminal([crystalBinary], { cwd: sandbox.workspace, env: { ...sandbox.env, TERM: "xterm" } })
    cleanups.push(() => terminal.close())
    // Wide enough for /usage's longest line unwrapped.
    terminal.resize(200)
    await terminal.waitFor(/approval default · local\/test-model/)
    fake.script([either, either])
    terminal.type("hi")
    terminal.press("Enter")
    await terminal.waitFor(/Hello there\./)
    await fake.waitForRequest(2)
    return terminal
  }

  it("shows the session's cost in the status line and in /usage, the title request included", async () => {
    const terminal = await start({ "local/test-model": { input: 10, output: 50, cachedInput: 1 } })
    // Turn: 10k uncached at 10 + 10k cached at 1 + 2k out at 50 = $0.21; title: 5k in at 10 + 100 out at 50 = $0.055.
    await terminal.waitFor(/· \$0\.2650/)
    terminal.type("/usage")
    terminal.press("Enter")
    const screen = await terminal.waitFor(/last turn .+\n/)
    expect(screen).toContain("session    25,000 in (10,000 cached), 2,100 out · cost $0.2650")
    expect(screen).toContain("last turn  20,000 in (10,000 cached), 2,000 out · cost $0.2100")
  })

  it("shows tokens alone when the model has no price", async () => {
    const terminal = await start(undefined)
    await terminal.waitFor(/· 25k in 2\.1k out/)
    terminal.type("/usage")
    terminal.press("Enter")
    const screen = await terminal.waitFor(/^session {4}.+\n/m)
    expect(screen).toContain('session    25,000 in (10,000 cached), 2,100 out · cost unknown (no price for local/test-model; set "pricing" in config.json)')
  })
})
