/**
 * `crystal` on a terminal: the interactive UI of the compiled binary, driven through a real
 * pseudo-terminal (tmux) against the fake LLM server.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { execFileSync } from "node:child_process"
import { afterEach, describe, expect, it } from "vitest"
import { crystalBinary, makeSandbox, readSession, runCrystal, sessionFiles, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import { startFakeLlm, type FakeLlm, type RecordedRequest, type Reply } from "../support/fake-llm/server.ts"
import { openTerminal, tmuxAvailable, type Terminal } from "../support/tmux.ts"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const ready = /approval default · local\/test-model/

// After a session's first answered turn the UI asks for its title in the background (one more request).
const title = { text: "Greeting the user" }
const isTitleRequest = (request: RecordedRequest) => JSON.stringify(request.body).includes("Name this coding session")
/** For a reply that may race the title request: whichever arrives first gets its own answer. */
const titleOr = (reply: Reply): Reply => (request) => (isTitleRequest(request) ? title : typeof reply === "function" ? reply(request) : reply)

describe.runIf(tmuxAvailable())("crystal in a terminal", () => {
  const start = async (options: { env?: Record<string, string>; files?: Record<string, string>; args?: Array<string> } = {}) => {
    const sandbox: Sandbox = await makeSandbox({ "README.md": "# hello\n", ...options.files })
    const fake: FakeLlm = await startFakeLlm()
    cleanups.push(() => fake.close())
    await writeLocalConfig(sandbox, fake.url)
    const terminal: Terminal = openTerminal([crystalBinary, ...(options.args ?? [])], {
      cwd: sandbox.workspace,
      env: { ...sandbox.env, TERM: "xterm", ...options.env }
    })
    cleanups.push(() => terminal.close())
    await terminal.waitFor(ready)
    return { sandbox, fake, terminal }
  }

  /** The saved sessions, once one has this title (titles are written in the background). */
  const titled = async (sandbox: Sandbox, title: string) => {
    for (let tries = 0; tries < 100; tries++) {
      const sessions = await Promise.all((await sessionFiles(sandbox)).map(readSession))
      if (sessions.some((doc) => doc["title"] === title)) return sessions
      await new Promise((resolve) => setTimeout(resolve, 50))
    }
    throw new Error(`no session titled "${title}"`)
  }

  const userItems = async (sandbox: Sandbox) => {
    const [file] = await sessionFiles(sandbox)
    return (await readSession(file ?? "")).items
  }

  /** The saved items once `ready` holds (up to 5 s): the session is written behind the turn, so the screen can show an answer before the file has it. */
  const savedItemsWhen = async (sandbox: Sandbox, ready: (items: ReadonlyArray<Record<string, unknown>>) => boolean) => {
    let items = await userItems(sandbox)
    for (let waited = 0; !ready(items) && waited < 5000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      items = await userItems(sandbox)
    }
    return items
  }
  const isToolResult = (item: Record<string, unknown>) => item["_tag"] === "tool_result"

  it("streams an answer with Markdown, keeps history, and leaves on Ctrl+D with the terminal restored", async () => {
    const { sandbox, fake, terminal } = await start()
    fake.script([
      { text: ["# Plan\n", "Use **bold** and `code`:\n", "- one\n- two\n", "```sh\nnpm test\n```\nDone."], chunkDelayMs: 30 },
      title,
      { text: "Second answer." }
    ])
    terminal.type("what does the readme say?")
    terminal.press("Enter")
    const screen = await terminal.waitFor(/Done\.\n/)
    expect(screen).toContain("› what does the readme say?")
    // NO_COLOR keeps the Markdown source as it is.
    expect(screen).toMatch(/# Plan\nUse \*\*bold\*\* and `code`:\n- one\n- two\n```sh\nnpm test\n```\nDone\./)
    expect(isTitleRequest(await fake.waitForRequest(2))).toBe(true)
    // Up brings the last prompt back; Enter sends it again.
    terminal.press("Up")
    await terminal.waitFor(/^› what does the readme say\?\s*$/m)
    terminal.press("Enter")
    await terminal.waitFor(/Second answer\./)
    terminal.press("C-d")
    const end = await terminal.waitFor(/EXIT=0\nSTTY: .+/)
    expect(end).toMatch(/resume it with: crystal --resume \d{8}-\d{6}-[0-9a-f]{6}/)
    // stty after exit: line editing, echo and signals are back on (a "-" prefix would mean off).
    expect(end).toMatch(/^STTY: isig icanon echo\s*$/m)
    expect((await userItems(sandbox)).filter((item) => item["_tag"] === "user")).toHaveLength(2)
    const [file] = await sessionFiles(sandbox)
    expect((await readSession(file ?? ""))["title"]).toBe("Greeting the user")
    const history = await fs.readdir(path.join(sandbox.home, "history"))
    expect(history).toHaveLength(1)
  })

  it("cancels a running turn on Ctrl+C, keeps the partial answer marked cancelled, and exits on Ctrl+C twice", async () => {
    const { sandbox, fake, terminal } = await start()
    fake.script([{ text: ["Slowly ", "thinking ", "about ", "it ", "forever"], chunkDelayMs: 400 }, { text: "Back again." }])
    terminal.type("take your time")
    terminal.press("Enter")
    await terminal.waitFor(/Slowly/)
    terminal.press("C-c")
    await terminal.waitFor(/cancelled · the partial answer is kept/)
    expect((await fake.requests[0]?.closed)?.beforeReplyFinished).toBe(true)
    terminal.type("hello?")
    terminal.press("Enter")
    await terminal.waitFor(/Back again\./)
    terminal.press("C-c")
    await terminal.waitFor(/Press Ctrl\+C again to exit/)
    terminal.press("C-c")
    await terminal.waitFor(/EXIT=0/)
    const assistant = (await userItems(sandbox)).find((item) => item["_tag"] === "assistant")
    expect(assistant).toMatchObject({ incomplete: true, finishReason: "cancelled" })
    expect(String(assistant?.["text"])).toMatch(/^Slowly /)
  })

  it("inserts pasted lines without sending them, and Alt+Enter adds a line", async () => {
    const { sandbox, fake, terminal } = await start()
    fake.script([{ text: "Got three lines." }])
    // tmux pastes with bracketed paste when the application asked for it.
    execFileSync("tmux", ["set-buffer", "-b", "crystal-paste", "first line\nsecond line\n"])
    terminal.pasteBuffer("crystal-paste")
    await terminal.waitFor(/second line/)
    expect(fake.requests).toHaveLength(0)
    terminal.type("third")
    terminal.press("M-Enter")
    terminal.type("fourth")
    terminal.press("Enter")
    await terminal.waitFor(/Got three lines\./)
    const user = (await savedItemsWhen(sandbox, (items) => items.some((item) => item["_tag"] === "assistant"))).find((item) => item["_tag"] === "user")
    expect(user?.["text"]).toBe("first line\nsecond line\nthird\nfourth")
  })

  it("asks for approval: deny with a message, then allow once, with the diff shown", async () => {
    const { sandbox, fake, terminal } = await start({ files: { "notes.txt": "alpha\nbeta\n" } })
    fake.script([
      { toolCalls: [{ name: "edit", arguments: { path: "notes.txt", old_string: "beta", new_string: "gamma" } }] },
      { toolCalls: [{ name: "edit", arguments: { path: "notes.txt", old_string: "beta", new_string: "delta" } }] },
      { text: "Edited." }
    ])
    terminal.type("change beta")
    terminal.press("Enter")
    let screen = await terminal.waitFor(/Allow once/)
    expect(screen).toMatch(/- beta\n\s+\+ gamma/)
    terminal.press("Down", "Down", "Down")
    terminal.press("Enter")
    await terminal.waitFor(/Message to the model/)
    terminal.type("use delta instead")
    terminal.press("Enter")
    screen = await terminal.waitFor(/\+ delta[\s\S]*Allow once/)
    terminal.press("Enter")
    await terminal.waitFor(/Edited\./)
    expect(await fs.readFile(path.join(sandbox.workspace, "notes.txt"), "utf8")).toBe("alpha\ndelta\n")
    const results = (await savedItemsWhen(sandbox, (items) => items.filter(isToolResult).length >= 2)).filter(isToolResult)
    expect(String(results[0]?.["text"])).toContain("use delta instead")
    expect(results[1]).toMatchObject({ isError: false })
  })

  it("answers two questions, one multi-select, through one shared confirm step", async () => {
    const { sandbox, fake, terminal } = await start()
    const questions = [
      { header: "DB", question: "Which database?", options: [{ label: "Postgres", description: "server" }, { label: "SQLite", description: "file" }] },
      {
        header: "Extras",
        question: "What else?",
        multiSelect: true,
        options: [{ label: "Docker", description: "d" }, { label: "CI", description: "c" }, { label: "Docs", description: "x" }]
      }
    ]
    fake.script([{ toolCalls: [{ name: "question", arguments: { questions } }] }, { text: "Noted." }])
    terminal.type("set it up")
    terminal.press("Enter")
    await terminal.waitFor(/DB \(1\/2\): Which database\?/)
    terminal.press("Down", "Enter")
    await terminal.waitFor(/Extras \(2\/2\): What else\?/)
    terminal.press("Space", "Down", "Down", "Space", "Enter")
    await terminal.waitFor(/Submit these answers\?/)
    expect(terminal.screen()).toMatch(/Extras: Docker, Docs/)
    terminal.press("Enter")
    await terminal.waitFor(/Noted\./)
    const result = (await savedItemsWhen(sandbox, (items) => items.some(isToolResult))).find(isToolResult)
    expect(JSON.parse(String(result?.["text"]))).toEqual({
      answers: [
        { header: "DB", selected: ["SQLite"] },
        { header: "Extras", selected: ["Docker", "Docs"] }
      ]
    })
  })

  it("Ctrl+C in an approval dialog denies the call and cancels the turn", async () => {
    const { sandbox, fake, terminal } = await start()
    fake.script([{ toolCalls: [{ name: "bash", arguments: { command: "touch made.txt" } }] }, { text: "Back." }])
    terminal.type("make a file")
    terminal.press("Enter")
    await terminal.waitFor(/Allow once/)
    expect(terminal.screen()).toMatch(/touch made\.txt/)
    terminal.press("C-c")
    await terminal.waitFor(/cancelled · the partial answer is kept/)
    await expect(fs.access(path.join(sandbox.workspace, "made.txt"))).rejects.toThrow()
    expect(fake.requests).toHaveLength(1)
    terminal.type("still there?")
    terminal.press("Enter")
    await terminal.waitFor(/Back\./)
  })

  it("dismissing a question with Esc fails the tool call", async () => {
    const { sandbox, fake, terminal } = await start()
    const questions = [{ header: "DB", question: "Which database?", options: [{ label: "Postgres", description: "a" }, { label: "SQLite", description: "b" }] }]
    fake.script([{ toolCalls: [{ name: "question", arguments: { questions } }] }, { text: "Going with the default." }])
    terminal.type("set it up")
    terminal.press("Enter")
    await terminal.waitFor(/Which database\?/)
    terminal.press("Escape")
    await terminal.waitFor(/Going with the default\./)
    const result = (await savedItemsWhen(sandbox, (items) => items.some(isToolResult))).find(isToolResult)
    expect(result).toMatchObject({ isError: true })
  })

  it("completes slash commands, switches mode and approval, and redraws at 60 columns", async () => {
    const { sandbox, terminal } = await start()
    terminal.type("/pl")
    await terminal.waitFor(/\/plan\s+switch to plan mode/)
    terminal.press("Enter")
    await terminal.waitFor(/^plan mode$/m)
    await terminal.waitFor(/plan · approval default/)
    terminal.type("/approval audit")
    terminal.press("Enter")
    await terminal.waitFor(/plan · approval audit/)
    terminal.type("/todos")
    terminal.press("Enter")
    await terminal.waitFor(/^no todos$/m)
    terminal.resize(60)
    terminal.type("/he")
    terminal.press("Tab")
    terminal.press("Enter")
    // The end of /help: the commands above it may scroll off a short screen as commands are added.
    const screen = await terminal.waitFor(/\/exit +leave/)
    for (const line of screen.split("\n")) expect(line.length).toBeLessThanOrEqual(60)
    expect(screen).toMatch(/plan · approval audit/)
    const [file] = await sessionFiles(sandbox)
    expect(await readSession(file ?? "")).toMatchObject({ mode: "plan", approval: "audit" })
  })

  it("completes @file mentions, Esc closes the menu then clears the input, and a prompt sent mid-turn waits its turn", async () => {
    const { sandbox, fake, terminal } = await start({ files: { "src/parser.ts": "x\n" } })
    terminal.type("look at @pars")
    await terminal.waitFor(/› @src\/parser\.ts/)
    terminal.press("Escape")
    await terminal.waitFor(/^› look at @pars\n\S*work · approval/m)
    terminal.press("BSpace")
    terminal.type("s")
    await terminal.waitFor(/› @src\/parser\.ts/)
    terminal.press("Tab")
    await terminal.waitFor(/^› look at @src\/parser\.ts\s*$/m)
    terminal.press("Escape")
    await terminal.waitFor(/^› Ask anything/m)
    fake.script([{ text: ["One ", "moment ", "please."], chunkDelayMs: 300 }, titleOr({ text: "Second reply." }), titleOr({ text: "Second reply." })])
    terminal.type("first")
    terminal.press("Enter")
    await terminal.waitFor(/One/)
    terminal.type("second")
    terminal.press("Enter")
    await terminal.waitFor(/queued: second/)
    await terminal.waitFor(/Second reply\./)
    // The session is written behind the turn: the screen can show the answer before the file has it.
    const usersSaved = async () => (await userItems(sandbox)).filter((item) => item["_tag"] === "user").map((item) => item["text"])
    let users = await usersSaved()
    for (let waited = 0; users.length < 2 && waited < 5000; waited += 100) {
      await new Promise((resolve) => setTimeout(resolve, 100))
      users = await usersSaved()
    }
    expect(users).toEqual(["first", "second"])
  })

  it("shows the end of the conversation when it resumes a session", async () => {
    const sandbox: Sandbox = await makeSandbox({})
    const fake: FakeLlm = await startFakeLlm()
    cleanups.push(() => fake.close())
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ text: "Earlier answer." }, { text: "Later answer." }])
    expect((await runCrystal(sandbox, ["run", "earlier question"])).code).toBe(0)
    const [file] = await sessionFiles(sandbox)
    const id = String((await readSession(file ?? ""))["id"])
    const terminal = openTerminal([crystalBinary, "--resume", id], { cwd: sandbox.workspace, env: { ...sandbox.env, TERM: "xterm" } })
    cleanups.push(() => terminal.close())
    const screen = await terminal.waitFor(ready)
    expect(screen).toMatch(/\(resumed\)[\s\S]*› earlier question\nEarlier answer\.\n── resumed ──/)
    terminal.type("and later?")
    terminal.press("Enter")
    await terminal.waitFor(/Later answer\./)
  })

  it("/clear starts a new session file, and /resume's picker brings the first one back with its recap", async () => {
    const { sandbox, fake, terminal } = await start()
    // The title streams slowly, so /clear ends the first session before it arrives: it must still land in that session.
    const slowTitle = { text: ["Greeting ", "the user"], chunkDelayMs: 400 }
    fake.script([{ text: "First answer." }, slowTitle, { text: "Fresh answer." }, { text: "Second topic" }, { text: "Back in the first." }])
    terminal.type("hello")
    terminal.press("Enter")
    await terminal.waitFor(/First answer\./)
    await fake.waitForRequest(2)
    terminal.type("/clear")
    terminal.press("Enter")
    await terminal.waitFor(/new session \d{8}-/)
    terminal.type("again")
    terminal.press("Enter")
    await terminal.waitFor(/Fresh answer\./)
    await fake.waitForRequest(4)
    await titled(sandbox, "Second topic")
    const sessions = await titled(sandbox, "Greeting the user")
    expect(sessions.map((doc) => doc.items.filter((item) => item["_tag"] === "user").map((item) => item["text"])).sort()).toEqual([["again"], ["hello"]])
    // The fake's first message (the system text) is followed only by "again": the new session starts empty.
    expect((fake.requests[2]?.body as { messages: Array<{ role: string }> }).messages.map((message) => message.role)).toEqual(["system", "user"])

    terminal.type("/resume")
    terminal.press("Enter")
    // The picker offers the workspace's other sessions: the first one, under its title.
    const picker = await terminal.waitFor(/Resume which session\?[\s\S]*Greeting the user \(.*2 messages/)
    expect(picker).not.toContain("Second topic")
    terminal.press("Enter")
    await terminal.waitFor(/resumed session \S+ · Greeting the user\n› hello\nFirst answer\.\n── resumed ──/)
    terminal.type("and now?")
    terminal.press("Enter")
    await terminal.waitFor(/Back in the first\./)
    const first = sessions.find((doc) => doc["title"] === "Greeting the user")
    const users = (await readSession(path.join(sandbox.home, "sessions", `${String(first?.["id"])}.json`))).items.filter((item) => item["_tag"] === "user")
    expect(users.map((item) => item["text"])).toEqual(["hello", "and now?"])
  })

  it("/fork goes on in a copy naming its parent, and /export writes the session to a file", async () => {
    const { sandbox, fake, terminal } = await start()
    fake.script([{ text: "Answer." }, title])
    terminal.type("hello")
    terminal.press("Enter")
    await terminal.waitFor(/Answer\./)
    await fake.waitForRequest(2)
    terminal.type("/fork")
    terminal.press("Enter")
    const forked = /forked into session (\S+) \(from (\S+)\)/.exec(await terminal.waitFor(/forked into session \S+ \(from \S+\)/))
    const [, forkId, parentId] = forked ?? []
    const copy = await readSession(path.join(sandbox.home, "sessions", `${forkId}.json`))
    expect(copy).toMatchObject({ parent: parentId })
    expect(copy.items.map((item) => item["_tag"])).toEqual(["user", "assistant"])
    terminal.type("/export out/session.json")
    terminal.press("Enter")
    await terminal.waitFor(/exported to \S+session\.json/)
    const exported = JSON.parse(await fs.readFile(path.join(sandbox.workspace, "out", "session.json"), "utf8"))
    expect(exported.session).toMatchObject({ id: forkId, parent: parentId })
  })

  const systemOf = (request: RecordedRequest | undefined) => String((request?.body as { messages: Array<{ content?: unknown }> }).messages[0]?.content)
  const openIn = (sandbox: Sandbox, args: Array<string>) => {
    const terminal = openTerminal([crystalBinary, ...args], { cwd: sandbox.workspace, env: { ...sandbox.env, TERM: "xterm" } })
    cleanups.push(() => terminal.close())
    return terminal
  }

  it("crystal space DIR opens there; /cd goes on with the same session in another workspace", async () => {
    const sandbox: Sandbox = await makeSandbox({ "first/AGENTS.md": "Rules of the first.\n", "second/AGENTS.md": "Rules of the second.\n" })
    const fake: FakeLlm = await startFakeLlm()
    cleanups.push(() => fake.close())
    await writeLocalConfig(sandbox, fake.url)
    const first = path.join(sandbox.workspace, "first")
    const second = path.join(sandbox.workspace, "second")
    // Refusals: no terminal, and a directory that is not there.
    const piped = await runCrystal(sandbox, ["space", first])
    expect(piped.code).toBe(2)
    expect(piped.stderr).toMatch(/^crystal space: needs a terminal/)
    const missing = openIn(sandbox, ["space", "nowhere"])
    expect(await missing.waitFor(/EXIT=2/)).toMatch(/crystal: workspace nowhere is not an accessible directory/)
    const nothingSaved = openIn(sandbox, ["space"])
    expect(await nothingSaved.waitFor(/EXIT=2/)).toMatch(/no saved sessions to pick a workspace from; name one: crystal space DIR/)

    fake.script([titleOr({ text: "In the first." }), titleOr({ text: "In the first." }), titleOr({ text: "In the second." }), titleOr({ text: "In the second." })])
    const terminal = openIn(sandbox, ["space", "first"])
    expect(await terminal.waitFor(ready)).toContain(`local/test-model · ${first}`)
    terminal.type("where am I?")
    terminal.press("Enter")
    await terminal.waitFor(/In the first\./)
    const [firstRequest] = fake.requests.filter((request) => !isTitleRequest(request))
    expect(systemOf(firstRequest)).toContain(first)
    expect(systemOf(firstRequest)).toContain("Rules of the first.")

    terminal.type("/cd ../second")
    terminal.press("Enter")
    const moved = /workspace (\S+) · session (\S+) goes on here/.exec(await terminal.waitFor(/goes on here/))
    expect(moved?.[1]).toBe(second)
    terminal.type("and now?")
    terminal.press("Enter")
    await terminal.waitFor(/In the second\./)
    const turns = fake.requests.filter((request) => !isTitleRequest(request))
    expect(systemOf(turns[1])).toContain(second)
    expect(systemOf(turns[1])).toContain("Rules of the second.")
    expect(systemOf(turns[1])).not.toContain("Rules of the first.")
    expect((turns[1]?.body as { messages: Array<{ role: string }> }).messages.map((message) => message.role)).toEqual(["system", "user", "assistant", "user"])
    const files = await sessionFiles(sandbox)
    expect(files).toHaveLength(1)
    expect(await readSession(files[0] ?? "")).toMatchObject({ id: moved?.[2], workspace: second })
  })

  it("crystal space and /space pick among the workspaces of saved sessions", async () => {
    const sandbox: Sandbox = await makeSandbox({ "alpha/a.txt": "a\n", "beta/b.txt": "b\n" })
    const fake: FakeLlm = await startFakeLlm()
    cleanups.push(() => fake.close())
    await writeLocalConfig(sandbox, fake.url)
    const alpha = path.join(sandbox.workspace, "alpha")
    const beta = path.join(sandbox.workspace, "beta")
    fake.script([{ text: "Alpha." }, { text: "Beta." }, titleOr({ text: "Picked." }), titleOr({ text: "Picked." })])
    expect((await runCrystal(sandbox, ["run", "hi"], { cwd: alpha })).code).toBe(0)
    expect((await runCrystal(sandbox, ["run", "hi"], { cwd: beta })).code).toBe(0)

    const terminal = openIn(sandbox, ["space"])
    // Newest first: beta, then alpha.
    expect(await terminal.waitFor(/Which workspace\?[\s\S]*alpha/)).toMatch(new RegExp(`${beta}[\\s\\S]*${alpha}`))
    terminal.press("Down")
    terminal.press("Enter")
    expect(await terminal.waitFor(ready)).toContain(`local/test-model · ${alpha}`)
    terminal.type("/space")
    terminal.press("Enter")
    // The first picker is still on the screen, answered (◇): wait for the new one, still open (◆).
    await terminal.waitFor(/◆\s+Which workspace\?[\s\S]*alpha/)
    terminal.press("Enter")
    await terminal.waitFor(new RegExp(`workspace ${beta} · new session`))
    terminal.type("hello")
    terminal.press("Enter")
    await terminal.waitFor(/Picked\./)
    const sessions = await Promise.all((await sessionFiles(sandbox)).map(readSession))
    expect(sessions.filter((doc) => doc["workspace"] === beta)).toHaveLength(2)
  })

  it("/compact sends a summary request and says so; /side shows an answer that the session does not keep", async () => {
    const { sandbox, fake, terminal } = await start()
    fake.script([{ text: "First." }, title, { text: "Second." }, { text: "The operator said one, then two." }, { text: "A side **answer**." }])
    terminal.type("one")
    terminal.press("Enter")
    await terminal.waitFor(/First\./)
    await fake.waitForRequest(2)
    terminal.type("two")
    terminal.press("Enter")
    await terminal.waitFor(/Second\./)
    terminal.type("/compact keep the numbers")
    terminal.press("Enter")
    await terminal.waitFor(/Compacted the conversation: 2 earlier messages summarised, 2 kept verbatim/)
    const summary = JSON.stringify(fake.requests[3]?.body)
    expect(summary).toContain("The conversation to summarise")
    expect(summary).toContain("keep the numbers")
    const [file] = await sessionFiles(sandbox)
    const before = await fs.readFile(file ?? "", "utf8")
    expect(JSON.parse(before).items.at(-1)).toMatchObject({ _tag: "compaction", summary: "The operator said one, then two." })

    terminal.type("/side what came first?")
    terminal.press("Enter")
    await terminal.waitFor(/side answer · local\/test-model · not kept in the conversation\nA side \*\*answer\*\*\.\n── end of side answer ──/)
    expect(JSON.stringify(fake.requests[4]?.body)).toContain("what came first?")
    // Nothing of it is kept but what it cost (the session's usage counts every request).
    const after = await fs.readFile(file ?? "", "utf8")
    expect(JSON.parse(after).items).toEqual(JSON.parse(before).items)
    expect(after).not.toContain("A side")
    // Once answered, the command's activity line is gone from the live region.
    terminal.type("/todos")
    terminal.press("Enter")
    expect(await terminal.waitFor(/› \/todos\n.+\n/)).not.toMatch(/answering the side question/)
  })

  it("gives the terminal back on SIGTERM, with the session saved", async () => {
    const { sandbox, fake, terminal } = await start()
    fake.script([{ text: ["Working ", "on ", "it ", "for ", "a ", "long ", "time"], chunkDelayMs: 400 }])
    terminal.type("go")
    terminal.press("Enter")
    await terminal.waitFor(/Working/)
    process.kill(terminal.commandPid(), "SIGTERM")
    const screen = await terminal.waitFor(/EXIT=143\nSTTY: .+/)
    expect(screen).toMatch(/^STTY: isig icanon echo\s*$/m)
    // The live region (spinner, input, status line) was erased before leaving.
    expect(screen).not.toMatch(/Ctrl\+C cancels/)
    const assistant = (await userItems(sandbox)).find((item) => item["_tag"] === "assistant")
    expect(assistant).toMatchObject({ incomplete: true })
  })

  it("on SIGTERM with a prompt queued, leaves without starting, echoing or storing the queued prompt", async () => {
    const { sandbox, fake, terminal } = await start()
    fake.script([{ text: ["Working ", "on ", "it ", "for ", "a ", "long ", "time"], chunkDelayMs: 400 }, titleOr({ text: "Never asked." }), titleOr({ text: "Never asked." })])
    terminal.type("go")
    terminal.press("Enter")
    await terminal.waitFor(/Working/)
    terminal.type("queued prompt")
    terminal.press("Enter")
    await terminal.waitFor(/queued: queued prompt/)
    process.kill(terminal.commandPid(), "SIGTERM")
    const screen = await terminal.waitFor(/EXIT=143\nSTTY: .+/)
    // The interrupted turn's end used to start the next queued prompt: echoed, stored, even sent.
    expect(screen).not.toMatch(/› queued prompt/)
    expect(fake.requests.filter((request) => !isTitleRequest(request))).toHaveLength(1)
    const users = (await userItems(sandbox)).filter((item) => item["_tag"] === "user").map((item) => item["text"])
    expect(users).toEqual(["go"])
  })

  it("writes the conversation as plain text when stdout is not a terminal", async () => {
    const sandbox: Sandbox = await makeSandbox({})
    const fake: FakeLlm = await startFakeLlm()
    cleanups.push(() => fake.close())
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ text: "Plain **answer**.\n" }])
    const out = path.join(sandbox.home, "out.txt")
    const terminal = openTerminal(["sh", "-c", `'${crystalBinary}' > '${out}'`], { cwd: sandbox.workspace, env: { ...sandbox.env, TERM: "xterm" } })
    cleanups.push(() => terminal.close())
    await terminal.waitFor(ready)
    terminal.type("hi")
    terminal.press("Enter")
    await terminal.waitFor(/Plain \*\*answer\*\*\./)
    terminal.press("C-d")
    await terminal.waitFor(/EXIT=0/)
    const text = await fs.readFile(out, "utf8")
    expect(text).toContain("› hi\nPlain **answer**.\n")
    expect(text).not.toContain("\x1b")
  })

  it("crystal run on a terminal draws the model's control characters as symbols instead of obeying them", async () => {
    const sandbox: Sandbox = await makeSandbox({})
    const fake: FakeLlm = await startFakeLlm()
    cleanups.push(() => fake.close())
    await writeLocalConfig(sandbox, fake.url)
    fake.script([
      { toolCalls: [{ id: "call_ls", name: "list", arguments: { path: ".\x1b[2J" } }] },
      { text: ["Title \x1b]0;pwned\x07 set, screen \x1b[2J cleared?\r", "\nA CRLF split across tokens.\r\n"] }
    ])
    const terminal = openTerminal([crystalBinary, "run", "hi"], { cwd: sandbox.workspace, env: { ...sandbox.env, TERM: "xterm" } })
    cleanups.push(() => terminal.close())
    const screen = await terminal.waitFor(/EXIT=\d+/)
    expect(screen).toContain("Title ␛]0;pwned␇ set, screen ␛[2J cleared?\nA CRLF split across tokens.\n")
    expect(screen).toContain("→ list .␛[2J")
  })
})
