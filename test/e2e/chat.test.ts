/** `crystal` on a terminal (the minimal line loop), driven through a real pseudo-terminal. */
import { afterEach, describe, expect, it } from "vitest"
import { crystalBinary, makeSandbox, readSession, sessionFiles, writeLocalConfig } from "../support/crystal.ts"
import { startFakeLlm, type FakeLlm } from "../support/fake-llm/server.ts"
import { openTerminal, tmuxAvailable, type Terminal } from "../support/tmux.ts"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

describe.runIf(tmuxAvailable())("crystal in a terminal", () => {
  const start = async () => {
    const sandbox = await makeSandbox({ "README.md": "# hello\n" })
    const fake: FakeLlm = await startFakeLlm()
    cleanups.push(() => fake.close())
    await writeLocalConfig(sandbox, fake.url)
    const terminal: Terminal = openTerminal([crystalBinary], { cwd: sandbox.workspace, env: { ...sandbox.env, TERM: "xterm" } })
    cleanups.push(() => terminal.close())
    await terminal.waitFor(/›\s*$/m)
    return { sandbox, fake, terminal }
  }

  it("converses turn by turn, then leaves on Ctrl+D with the terminal restored", async () => {
    const { sandbox, fake, terminal } = await start()
    fake.script([
      { toolCalls: [{ name: "read", arguments: { path: "README.md" } }] },
      { text: "It says hello." },
      { text: "Readme contents" },
      { text: "Still hello." }
    ])
    terminal.type("what does the readme say?")
    terminal.press("Enter")
    await terminal.waitFor(/It says hello\.\n›\s*$/m)
    expect(terminal.screen()).toContain("→ read README.md")
    // The title request follows the first exchange, in the background.
    expect(JSON.stringify((await fake.waitForRequest(3)).body)).toContain("Name this coding session")
    terminal.type("and now?")
    terminal.press("Enter")
    await terminal.waitFor(/Still hello\./)
    terminal.press("C-d")
    const screen = await terminal.waitFor(/EXIT=0\nSTTY: .+/)
    expect(screen).toMatch(/resume it with: crystal --resume \d{8}-\d{6}-[0-9a-f]{6}/)
    // stty after exit: line editing, echo and signals are back on (a "-" prefix would mean off).
    expect(screen).toMatch(/^STTY: isig icanon echo\s*$/m)
    const [file] = await sessionFiles(sandbox)
    const saved = await readSession(file ?? "")
    expect(saved.items.filter((item) => item["_tag"] === "user")).toHaveLength(2)
    expect(saved["title"]).toBe("Readme contents")
  })

  it("cancels a running turn on Ctrl+C, keeps the partial answer, and goes on", async () => {
    const { sandbox, fake, terminal } = await start()
    fake.script([{ text: ["Slowly ", "thinking ", "about ", "it ", "forever"], chunkDelayMs: 400 }, { text: "Back again." }])
    terminal.type("take your time")
    terminal.press("Enter")
    await terminal.waitFor(/Slowly/)
    terminal.press("C-c")
    await terminal.waitFor(/turn cancelled; what was complete is kept\n›\s*$/m)
    expect((await fake.requests[0]?.closed)?.beforeReplyFinished).toBe(true)
    terminal.type("hello?")
    terminal.press("Enter")
    await terminal.waitFor(/Back again\./)
    terminal.press("C-c")
    await terminal.waitFor(/EXIT=0/)
    const [file] = await sessionFiles(sandbox)
    const items = (await readSession(file ?? "")).items
    expect(items.find((item) => item["_tag"] === "assistant")).toMatchObject({ incomplete: true, finishReason: "cancelled" })
  })
})
