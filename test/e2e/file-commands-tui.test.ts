/**
 * /init and commands from files in the interactive UI: the compiled binary in tmux against the
 * fake model. /init's write of AGENTS.md (or its edit of one that exists) goes through the
 * approval dialog with the diff like any other write.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { crystalBinary, makeSandbox, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import { startFakeLlm, type FakeLlm, type RecordedRequest, type Reply } from "../support/fake-llm/server.ts"
import { openTerminal, tmuxAvailable, type Terminal } from "../support/tmux.ts"
import { writeTree } from "../support/temp.ts"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const ready = /approval default · local\/test-model/
const isTitleRequest = (request: RecordedRequest) => JSON.stringify(request.body).includes("Name this coding session")
/** After the first answered turn the UI asks for a title in the background; whichever request comes gets its own answer. */
const titleOr = (reply: Reply): Reply => (request) => (isTitleRequest(request) ? { text: "A title" } : typeof reply === "function" ? reply(request) : reply)

const userTexts = (fake: FakeLlm): Array<string> =>
  fake.requests
    .filter((request) => !isTitleRequest(request))
    .map((request) => {
      const messages = (request.body as { messages: Array<{ role: string; content?: unknown }> }).messages
      const content = messages.filter((message) => message.role === "user").at(-1)?.content
      return typeof content === "string" ? content : JSON.stringify(content)
    })

describe.runIf(tmuxAvailable())("/init and commands from files in a terminal", () => {
  const start = async (files: Record<string, string>, commands: Record<string, string> = {}) => {
    const sandbox: Sandbox = await makeSandbox(files)
    await writeTree(path.join(sandbox.workspace, ".crystal", "commands"), { ".keep": "", ...commands })
    const fake = await startFakeLlm()
    cleanups.push(() => fake.close())
    await writeLocalConfig(sandbox, fake.url)
    const terminal: Terminal = openTerminal([crystalBinary], { cwd: sandbox.workspace, env: { ...sandbox.env, TERM: "xterm" } })
    cleanups.push(() => terminal.close())
    const screen = await terminal.waitFor(ready)
    return { sandbox, fake, terminal, screen }
  }

  it("/init explores, then writes AGENTS.md only once the diff is approved", async () => {
    const { sandbox, fake, terminal } = await start({ "package.json": '{ "scripts": { "test": "vitest run" } }\n' })
    fake.script([
      titleOr({ toolCalls: [{ name: "read", arguments: { path: "package.json" } }] }),
      titleOr({ toolCalls: [{ name: "write", arguments: { path: "AGENTS.md", content: "# Agents\n\nTest: `npm test`\n" } }] }),
      titleOr({ text: "Wrote AGENTS.md." }),
      titleOr({ text: "unused" })
    ])
    terminal.type("/ini")
    await terminal.waitFor(/\/init\s+explore the workspace, then write AGENTS\.md/)
    terminal.press("Tab")
    terminal.press("Enter")
    const dialog = await terminal.waitFor(/Allow once/)
    expect(dialog).toMatch(/\+ # Agents/)
    expect(dialog).toMatch(/\+ Test: `npm test`/)
    await expect(fs.stat(path.join(sandbox.workspace, "AGENTS.md"))).rejects.toThrow(/ENOENT/)
    terminal.press("Enter")
    await terminal.waitFor(/Wrote AGENTS\.md\./)
    expect(await fs.readFile(path.join(sandbox.workspace, "AGENTS.md"), "utf8")).toBe("# Agents\n\nTest: `npm test`\n")
    expect(userTexts(fake)[0]).toMatch(/^Write the workspace's AGENTS\.md: [\s\S]*If AGENTS\.md already exists, read it first[\s\S]*propose an edit with the edit tool/)
  })

  it("/init on an existing AGENTS.md proposes an edit; denied, the file stays as it was", async () => {
    const { sandbox, fake, terminal } = await start({ "AGENTS.md": "# Agents\nBuild: make\n" })
    fake.script([
      titleOr({ toolCalls: [{ name: "read", arguments: { path: "AGENTS.md" } }] }),
      titleOr({ toolCalls: [{ name: "edit", arguments: { path: "AGENTS.md", old_string: "Build: make", new_string: "Build: make all" } }] }),
      titleOr({ text: "Left it as it was." }),
      titleOr({ text: "unused" })
    ])
    terminal.type("/init")
    terminal.press("Enter")
    const dialog = await terminal.waitFor(/Allow once/)
    expect(dialog).toMatch(/- Build: make\n\s+\+ Build: make all/)
    terminal.press("Down", "Down", "Enter")
    await terminal.waitFor(/Left it as it was\./)
    expect(await fs.readFile(path.join(sandbox.workspace, "AGENTS.md"), "utf8")).toBe("# Agents\nBuild: make\n")
  })

  it("offers a workspace command in the menu, runs it with its arguments, lists it in /help, and says why a refused one did not run", async () => {
    const { fake, terminal, screen } = await start(
      { "src/a.ts": "export const a = 1\n" },
      {
        "explain.md": "---\ndescription: Explain a file\n---\nExplain $1 briefly.\n",
        "help.md": "Not the real help.\n",
        "delegate.md": "---\nagent: reviewer\n---\nGo.\n"
      }
    )
    // Said once as the app starts.
    const flat = (text: string) => text.replace(/\s+/g, " ")
    expect(flat(screen)).toMatch(/help\.md: \/help is a built-in command; rename the file \(the built-in one stays\)\./)
    fake.script([titleOr({ text: "It exports a." }), titleOr({ text: "unused" })])
    terminal.type("/expl")
    await terminal.waitFor(/\/explain ARGUMENTS|\/explain\s+Explain a file/)
    terminal.press("Tab")
    terminal.type("src/a.ts")
    terminal.press("Enter")
    await terminal.waitFor(/It exports a\./)
    expect(userTexts(fake)[0]).toBe("Explain src/a.ts briefly.\n")
    terminal.type("/delegate now")
    terminal.press("Enter")
    const refusal = await terminal.waitFor(/› \/delegate now\n[\s\S]*\/delegate skipped\./)
    expect(flat(refusal)).toMatch(/› \/delegate now \S*delegate\.md: "agent" names a subagent, and a command cannot run as one \(it runs in the session itself\); \/delegate skipped\./)
    expect(fake.requests.filter((request) => !isTitleRequest(request))).toHaveLength(1)
    terminal.type("/help")
    terminal.press("Enter")
    const help = await terminal.waitFor(/\/explain ARGUMENTS\s+Explain a file \(workspace\)/)
    expect(help).toMatch(/\/init \[NOTES\] +explore the workspace/)
  })

  it("Ctrl+C cancels a command's turn, said once", async () => {
    const { fake, terminal } = await start({}, { "slow.md": "Take your time.\n" })
    fake.script([{ text: ["Slowly ", "thinking ", "about ", "it ", "forever"], chunkDelayMs: 400 }])
    terminal.type("/slow")
    terminal.press("Enter")
    await terminal.waitFor(/Slowly/)
    terminal.press("C-c")
    const screen = await terminal.waitFor(/cancelled · the partial answer is kept/)
    expect(screen.match(/cancelled/g)).toHaveLength(1)
  })
})
