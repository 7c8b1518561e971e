/**
 * /rewind in the interactive UI of the compiled binary (tmux): the turn line says what a turn
 * changed; /rewind lists the turns, offers what to rewind, shows a file the operator changed as a
 * diff and asks about it; the files go back and the model no longer sees the turn.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { crystalBinary, makeSandbox, runCrystal, sessionFiles, writeLocalConfig } from "../support/crystal.ts"
import { startFakeLlm, type RecordedRequest, type Reply } from "../support/fake-llm/server.ts"
import { openTerminal, tmuxAvailable } from "../support/tmux.ts"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const isTitleRequest = (request: RecordedRequest) => JSON.stringify(request.body).includes("Name this coding session")
const hasToolResult = (request: RecordedRequest) => JSON.stringify(request.body).includes('"role":"tool"')

/** The turn writes two files then answers; the title request (which may come any time) gets a title. */
const reply: Reply = (request) => {
  if (isTitleRequest(request)) return { text: "Edits" }
  if (!JSON.stringify(request.body).includes("make the files")) return { text: "Nothing to recall." }
  if (!hasToolResult(request)) {
    return {
      toolCalls: [
        { id: "w1", name: "write", arguments: { path: "notes.txt", content: "written by the turn\n" } },
        { id: "e1", name: "edit", arguments: { path: "keep.txt", old_string: "original", new_string: "edited by the turn" } }
      ]
    }
  }
  return { text: "Both done." }
}

describe.runIf(tmuxAvailable())("/rewind in a terminal", () => {
  it("lists the turn, asks about the operator's edit, and puts the files and the conversation back", async () => {
    const sandbox = await makeSandbox({ "keep.txt": "original\n", "mine.txt": "mine\n" })
    const fake = await startFakeLlm()
    cleanups.push(() => fake.close())
    await writeLocalConfig(sandbox, fake.url)
    const terminal = openTerminal([crystalBinary, "--approval", "full"], { cwd: sandbox.workspace, env: { ...sandbox.env, TERM: "xterm" } })
    cleanups.push(() => terminal.close())
    terminal.resize(160)
    await terminal.waitFor(/approval full/)
    fake.script([reply, reply, reply, reply, reply])
    terminal.type("make the files")
    terminal.press("Enter")
    await terminal.waitFor(/✎ turn 1: 2 files changed \(\+2 −1\) · \/rewind to undo/)
    await terminal.waitFor(/Both done\./)
    // A headless rewind cannot race the open session: its lock says so (exit code 3), nothing changes.
    const [file] = await sessionFiles(sandbox)
    const busy = await runCrystal(sandbox, ["rewind", "--session", path.basename(file ?? "", ".json"), "--to", "1", "--yes"])
    expect(busy.code).toBe(3)
    expect(busy.stderr).toMatch(/is open in another crystal process/)
    expect(fs.readFileSync(path.join(sandbox.workspace, "keep.txt"), "utf8")).toBe("edited by the turn\n")
    // The operator edits the file the turn made.
    fs.writeFileSync(path.join(sandbox.workspace, "notes.txt"), "written by the turn\nand by me\n")

    terminal.type("/rewind")
    terminal.press("Enter")
    const list = await terminal.waitFor(/Rewind to just before which turn\?[\s\S]*1\. make the files/)
    expect(list).toMatch(/2 files changed \(\+2 −1\)/)
    terminal.press("Enter")
    await terminal.waitFor(/Rewind what\?[\s\S]*Files and conversation/)
    terminal.press("Enter")
    const asked = await terminal.waitFor(/Rewind notes\.txt too\?/)
    expect(asked).toContain("notes.txt was changed outside Crystal since it was recorded:")
    expect(asked).toContain("+and by me")
    // "No": the operator's file stays as it is; the rest goes back.
    terminal.press("Enter")
    const done = await terminal.waitFor(/this rewind is checkpoint 2/)
    expect(done).toContain("kept as you changed it: notes.txt")
    expect(fs.readFileSync(path.join(sandbox.workspace, "keep.txt"), "utf8")).toBe("original\n")
    expect(fs.readFileSync(path.join(sandbox.workspace, "notes.txt"), "utf8")).toBe("written by the turn\nand by me\n")
    expect(fs.readFileSync(path.join(sandbox.workspace, "mine.txt"), "utf8")).toBe("mine\n")

    // The next request does not carry the undone turn.
    const before = fake.requests.length
    terminal.type("what did you do?")
    terminal.press("Enter")
    await terminal.waitFor(/Nothing to recall\./)
    const next = fake.requests.slice(before).find((request) => !isTitleRequest(request))
    expect(JSON.stringify(next?.body)).not.toContain("make the files")
  })
})
