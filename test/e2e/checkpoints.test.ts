/**
 * Checkpoints and rewind end to end (issue 25): the compiled binary, the fake model, real files,
 * real git. One turn edits, writes, deletes, chmods, makes a link and runs shell commands; a
 * rewind puts the tree back byte for byte (content, mode, links), never touching the user's git.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, readSession, runCrystal, sessionFiles, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import { scriptByAgent } from "../support/fake-llm/by-agent.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { git } from "../support/git-repos.ts"
import { treeState } from "../unit/checkpoints/support.ts"

const fakeServer = useFakeServers()

const files = {
  "src/a.txt": "alpha\nbeta\n",
  "b.txt": "one\ntwo\n",
  "c.txt": "to be deleted\n",
  "d.txt": "to be moved\n",
  "run.sh": "#!/bin/sh\necho hi\n"
}

/** One turn that changes the workspace every way a turn can. */
const changingTurn = (withGit: boolean) => [
  {
    toolCalls: [
      { id: "c1", name: "edit", arguments: { path: "src/a.txt", old_string: "beta", new_string: "BETA" } },
      { id: "c2", name: "write", arguments: { path: "created/new.txt", content: "brand new\n" } }
    ]
  },
  {
    toolCalls: [
      {
        id: "c3",
        name: "bash",
        arguments: {
          command: `sed -i 's/one/ONE/' b.txt && rm c.txt && mv d.txt e.txt && chmod 755 run.sh && ln -s src/a.txt link-to-a${withGit ? " && git checkout -q -b feature" : ""}`
        }
      }
    ]
  },
  { text: "Done." }
]

const workspaceState = (sandbox: Sandbox) => treeState(sandbox.workspace, { skip: [".git"] })

const sessionIdOf = async (sandbox: Sandbox): Promise<string> => {
  const [file] = await sessionFiles(sandbox)
  if (file === undefined) throw new Error("no session saved")
  return path.basename(file, ".json")
}

/** `crystal rewind --format json` prints its own result lines (docs/checkpoints.md), not `run`'s event stream. */
const commandJson = (stdout: string): ReadonlyArray<Record<string, unknown>> =>
  stdout
    .split("\n")
    .filter((line) => line !== "")
    .map((line) => JSON.parse(line) as Record<string, unknown>)

const runTurn = async (sandbox: Sandbox, prompt: string, extra: ReadonlyArray<string> = []) => {
  const result = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", ...extra, prompt])
  expect(result.code, result.stderr).toBe(0)
  return jsonLines(result.stdout)
}

/** The user's git state a rewind must leave alone. */
const gitState = (dir: string) => ({
  staged: git(dir, "diff", "--cached"),
  index: git(dir, "ls-files", "--stage"),
  stash: git(dir, "stash", "list"),
  stashTree: git(dir, "rev-parse", "stash@{0}")
})

const dotGit = (dir: string) => treeState(path.join(dir, ".git"))

describe("checkpoints and rewind", () => {
  it("rewinds every kind of change in a git repository with a dirty index and a stash, never touching .git; then redoes it", async () => {
    const sandbox = await makeSandbox(files)
    fs.chmodSync(path.join(sandbox.workspace, "run.sh"), 0o644)
    const dir = sandbox.workspace
    git(dir, "init", "-q")
    git(dir, "add", "-A")
    git(dir, "commit", "-q", "-m", "initial")
    fs.writeFileSync(path.join(dir, "b.txt"), "one\ntwo\nstashed\n")
    git(dir, "stash", "-q")
    fs.writeFileSync(path.join(dir, "src/a.txt"), "alpha\nbeta\nstaged\n")
    git(dir, "add", "src/a.txt")
    fs.writeFileSync(path.join(dir, ".gitignore"), "ignored.log\n")
    fs.writeFileSync(path.join(dir, "ignored.log"), "kept\n")
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    const before = workspaceState(sandbox)
    const gitBefore = gitState(dir)

    fake.script(changingTurn(true))
    const events = await runTurn(sandbox, "change everything")
    const changed = events.find((event) => event.type === "files_changed") as { turn: number; files: Array<{ path: string; kind: string }> } | undefined
    expect(changed?.turn).toBe(1)
    expect(changed?.files.map((file) => `${file.kind} ${file.path}`)).toEqual([
      "modified b.txt",
      "deleted c.txt",
      "added created/new.txt",
      "deleted d.txt",
      "added e.txt",
      "added link-to-a",
      "modified run.sh",
      "modified src/a.txt"
    ])
    const afterTurn = workspaceState(sandbox)
    expect(afterTurn).not.toEqual(before)
    fs.writeFileSync(path.join(dir, "ignored.log"), "changed by the turn's tools, ignored by git\n")
    const dotGitAfterTurn = dotGit(dir)
    const id = await sessionIdOf(sandbox)

    const listed = await runCrystal(sandbox, ["checkpoints", "list", "--session", id, "--format", "json"])
    expect(listed.code, listed.stderr).toBe(0)
    const list = JSON.parse(listed.stdout) as { checkpoints: Array<{ turn: number; prompt: string; files: Array<unknown> }> }
    expect(list.checkpoints.map((entry) => [entry.turn, entry.prompt, entry.files.length])).toEqual([[1, "change everything", 8]])

    const rewound = await runCrystal(sandbox, ["rewind", "--session", id, "--to", "1"])
    expect(rewound.code, rewound.stderr).toBe(0)
    expect(rewound.stdout).toContain("this rewind is checkpoint 2")
    // The tree as it was, except the gitignored file the rewind leaves alone.
    const { "ignored.log": _ignoredNow, ...rewoundTree } = workspaceState(sandbox)
    const { "ignored.log": _ignoredBefore, ...treeBefore } = before
    expect(rewoundTree).toEqual(treeBefore)
    expect(fs.readFileSync(path.join(dir, "ignored.log"), "utf8")).toBe("changed by the turn's tools, ignored by git\n")
    // The user's .git is exactly as the turn left it (the turn's own `git checkout -b` stays), the
    // index, staged changes and stash exactly as before the turn.
    expect(dotGit(dir)).toEqual(dotGitAfterTurn)
    expect(gitState(dir)).toEqual(gitBefore)
    // The model does not remember the undone turn.
    const doc = await readSession(path.join(sandbox.home, "sessions", `${id}.json`))
    expect(doc.items).toEqual([])

    // Redo: rewinding to the rewind brings the turn's files and messages back.
    const redone = await runCrystal(sandbox, ["rewind", "--session", id, "--to", "2", "--format", "json"])
    expect(redone.code, redone.stderr).toBe(0)
    expect(commandJson(redone.stdout)[0]).toMatchObject({ type: "rewind", to: 2, checkpoint: { turn: 3, kind: "rewind" } })
    const { "ignored.log": _ignoredRedone, ...redoneTree } = workspaceState(sandbox)
    const { "ignored.log": _ignoredAfterTurn, ...treeAfterTurn } = afterTurn
    expect(redoneTree).toEqual(treeAfterTurn)
    const redoneDoc = await readSession(path.join(sandbox.home, "sessions", `${id}.json`))
    expect(redoneDoc.items.filter((item) => item["_tag"] === "user").map((item) => item["text"])).toEqual(["change everything"])
  })

  it("rewinds in a folder that is not a repository, and the next turn's model does not see the undone turn", async () => {
    const sandbox = await makeSandbox(files)
    fs.chmodSync(path.join(sandbox.workspace, "run.sh"), 0o644)
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    const before = workspaceState(sandbox)
    fake.script(changingTurn(false))
    await runTurn(sandbox, "change everything")
    const id = await sessionIdOf(sandbox)
    const rewound = await runCrystal(sandbox, ["rewind", "--session", id, "--to", "1", "--format", "json"])
    expect(rewound.code, rewound.stderr).toBe(0)
    expect(workspaceState(sandbox)).toEqual(before)
    fake.script([{ text: "Hello again." }])
    const requestsBefore = fake.requests.length
    await runTurn(sandbox, "what did you do?", ["--resume", id])
    const body = fake.requests[requestsBefore]?.body as { messages: Array<{ role: string; content?: unknown }> }
    expect(JSON.stringify(body.messages)).not.toContain("change everything")
    expect(body.messages.filter((message) => message.role === "user")).toHaveLength(1)

    // Deleting the session forgets its checkpoints (the turn's and the rewind's).
    const keysDir = (): string => {
      const [store] = fs.readdirSync(path.join(sandbox.home, "checkpoints"))
      return path.join(sandbox.home, "checkpoints", store as string, "keys")
    }
    const keyCount = () => fs.readdirSync(keysDir()).filter((name) => name.endsWith(".json")).length
    expect(keyCount()).toBe(2)
    const objectCount = (): number => {
      const objects = path.join(path.dirname(keysDir()), "objects")
      return (fs.readdirSync(objects, { recursive: true, withFileTypes: true }) as Array<fs.Dirent>).filter((entry) => entry.isFile()).length
    }
    const objectsBefore = objectCount()
    const deleted = await runCrystal(sandbox, ["sessions", "delete", id])
    expect(deleted.code, deleted.stderr).toBe(0)
    expect(keyCount()).toBe(0)
    // And pruned: what only the undone turn's snapshots held (its new file's content, the edits) is gone.
    expect(objectCount()).toBeLessThan(objectsBefore)
  })

  it("rewinds files only or the conversation only, and sessions show lists the checkpoints", async () => {
    const sandbox = await makeSandbox(files)
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    const before = workspaceState(sandbox)
    fake.script([
      { toolCalls: [{ id: "c1", name: "write", arguments: { path: "made.txt", content: "made\n" } }] },
      { text: "Made it." }
    ])
    await runTurn(sandbox, "make a file")
    const id = await sessionIdOf(sandbox)
    const afterTurn = workspaceState(sandbox)
    const sessionFile = path.join(sandbox.home, "sessions", `${id}.json`)
    const userTexts = async () => (await readSession(sessionFile)).items.filter((item) => item["_tag"] === "user").map((item) => item["text"])

    const filesOnly = await runCrystal(sandbox, ["rewind", "--session", id, "--to", "1", "--files-only"])
    expect(filesOnly.code, filesOnly.stderr).toBe(0)
    expect(workspaceState(sandbox)).toEqual(before)
    expect(await userTexts()).toEqual(["make a file"])

    const conversationOnly = await runCrystal(sandbox, ["rewind", "--session", id, "--to", "1", "--conversation-only"])
    expect(conversationOnly.code, conversationOnly.stderr).toBe(0)
    expect(workspaceState(sandbox)).toEqual(before)
    expect(await userTexts()).toEqual([])

    // Redo the files-only rewind (checkpoint 2): the file comes back; the conversation stays rewound.
    const redo = await runCrystal(sandbox, ["rewind", "--session", id, "--to", "2", "--files-only"])
    expect(redo.code, redo.stderr).toBe(0)
    expect(workspaceState(sandbox)).toEqual(afterTurn)

    const both = await runCrystal(sandbox, ["rewind", "--session", id, "--to", "1", "--files-only", "--conversation-only"])
    expect(both.code).toBe(2)
    const shown = await runCrystal(sandbox, ["sessions", "show", id])
    expect(shown.code, shown.stderr).toBe(0)
    expect(shown.stdout).toContain(`Checkpoints (crystal rewind --session ${id} --to TURN):`)
    // Turn 1's files stand again (the redo), its conversation is undone; the files-only rewind had no conversation to undo.
    expect(shown.stdout).toMatch(/^TURN +TIME \(UTC\) +FILES +PROMPT +STATE$/m)
    expect(shown.stdout).toMatch(/^1 +\S+ \S+ +1 file \(\+1 −0\) +make a file +conversation undone by 3$/m)
    expect(shown.stdout).toMatch(/^2 +\S+ \S+ +1 file \(\+0 −1\) +rewind to turn 1 \(files only\) +files undone by 4$/m)
    expect(shown.stdout).toMatch(/^4 +\S+ \S+ +1 file \(\+1 −0\) +rewind to before rewind 2 \(files only\)$/m)
  })

  it("asks about a file the operator changed since the turn: nothing changes without --yes, --yes rewinds it and a redo brings the edit back", async () => {
    const sandbox = await makeSandbox(files)
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    const before = workspaceState(sandbox)
    fake.script([
      { toolCalls: [{ id: "c1", name: "edit", arguments: { path: "b.txt", old_string: "two", new_string: "TWO" } }] },
      { text: "Done." }
    ])
    await runTurn(sandbox, "shout two")
    const id = await sessionIdOf(sandbox)
    fs.writeFileSync(path.join(sandbox.workspace, "b.txt"), "one\nTWO\nthe operator's line\n")
    const operatorState = workspaceState(sandbox)

    const refused = await runCrystal(sandbox, ["rewind", "--session", id, "--to", "1"])
    expect(refused.code).toBe(5)
    expect(refused.stdout).toContain("changed outside Crystal since it was recorded: b.txt")
    expect(refused.stdout).toContain("+the operator's line")
    expect(refused.stderr).toContain("nothing was rewound")
    expect(workspaceState(sandbox)).toEqual(operatorState)

    const json = await runCrystal(sandbox, ["rewind", "--session", id, "--to", "1", "--format", "json"])
    expect(json.code).toBe(5)
    expect(commandJson(json.stdout)[0]).toMatchObject({ type: "rewind_unconfirmed", outside: [{ path: "b.txt" }] })

    const forced = await runCrystal(sandbox, ["rewind", "--session", id, "--to", "1", "--yes"])
    expect(forced.code, forced.stderr).toBe(0)
    expect(workspaceState(sandbox)).toEqual(before)
    const redone = await runCrystal(sandbox, ["rewind", "--session", id, "--to", "2"])
    expect(redone.code, redone.stderr).toBe(0)
    expect(workspaceState(sandbox)).toEqual(operatorState)
  })

  it("skips a 12 MiB file with a note, and says why $HOME gets no checkpoints while the session goes on", async () => {
    const sandbox = await makeSandbox(files)
    fs.writeFileSync(path.join(sandbox.workspace, "big.bin"), Buffer.alloc(12 * 1024 * 1024, 7))
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ toolCalls: [{ id: "c1", name: "bash", arguments: { command: "echo more >> big.bin && echo x > small.txt" } }] }, { text: "Done." }])
    const events = await runTurn(sandbox, "grow it")
    const notes = events.filter((event) => event.type === "note").map((event) => String(event["text"]))
    expect(notes.filter((note) => note.includes("big.bin"))).toEqual([expect.stringContaining("Checkpoints skip big.bin (12 MiB")])
    const id = await sessionIdOf(sandbox)
    const rewound = await runCrystal(sandbox, ["rewind", "--session", id, "--to", "1"])
    expect(rewound.code, rewound.stderr).toBe(0)
    expect(rewound.stderr).toContain("big.bin was too large for checkpoints and is left as it is")
    expect(fs.existsSync(path.join(sandbox.workspace, "small.txt"))).toBe(false)
    expect(fs.statSync(path.join(sandbox.workspace, "big.bin")).size).toBe(12 * 1024 * 1024 + 5)

    // $HOME as the workspace: one note, the turn still runs.
    const home = sandbox.env["HOME"] as string
    fake.script([{ toolCalls: [{ id: "c1", name: "write", arguments: { path: "x.txt", content: "x\n" } }] }, { text: "Done." }])
    const inHome = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "write x"], { cwd: home })
    expect(inHome.code, inHome.stderr).toBe(0)
    const homeNotes = jsonLines(inHome.stdout).filter((event) => event.type === "note").map((event) => String(event["text"]))
    expect(homeNotes.filter((note) => note.includes("checkpoints are off"))).toEqual([expect.stringContaining("your home folder")])
    expect(fs.readFileSync(path.join(home, "x.txt"), "utf8")).toBe("x\n")
    expect(fs.existsSync(path.join(sandbox.home, "checkpoints"))).toBe(true)
  })

  it("takes no snapshot for turns that only read, and says what is wrong with a bad session id or turn number in one line", async () => {
    const sandbox = await makeSandbox(files)
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ toolCalls: [{ id: "c1", name: "read", arguments: { path: "b.txt" } }] }, { text: "Hi." }])
    const events = await runTurn(sandbox, "hello")
    expect(events.filter((event) => event.type === "files_changed")).toEqual([])
    // The store was not even opened.
    expect(fs.existsSync(path.join(sandbox.home, "checkpoints"))).toBe(false)
    const id = await sessionIdOf(sandbox)
    const listed = await runCrystal(sandbox, ["checkpoints", "list", "--session", id, "--format", "text"])
    expect(listed.stdout).toMatch(/^1\t\S+ \S+\t-\thello\t\n$/)
    const badSession = await runCrystal(sandbox, ["rewind", "--session", "nope", "--to", "1"])
    expect(badSession.code).toBe(1)
    expect(badSession.stderr.trim().split("\n")).toHaveLength(1)
    expect(badSession.stderr).toContain("nope")
    const badTurn = await runCrystal(sandbox, ["rewind", "--session", id, "--to", "9"])
    expect(badTurn.code).toBe(1)
    expect(badTurn.stderr.trim()).toBe(`crystal: --to 9: session ${id} has no turn 9 (its turns are 1–1; crystal checkpoints list --session ${id})`)
    const zero = await runCrystal(sandbox, ["rewind", "--session", id, "--to", "0"])
    expect(zero.code).toBe(2)
    expect(zero.stderr.trim()).toBe("crystal: --to 0: turns are numbered from 1 (crystal checkpoints list)")
  })
})

describe("checkpoints and subagents", () => {
  it("a child's write and edit are checkpointed with the parent's turn, listed in its files_changed, and rewound with it", async () => {
    const sandbox = await makeSandbox({
      "a.txt": "alpha\nbeta\n",
      ".crystal/agents/writer.md": ["---", "name: writer", "description: test agent writer", "---", "CPWRITER-9: you are the test agent writer.", ""].join("\n")
    })
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    const before = workspaceState(sandbox)
    scriptByAgent(fake, {
      root: [
        { toolCalls: [{ id: "call_task1", name: "task", arguments: { description: "change files", prompt: "Write new.txt and edit a.txt.", agent: "writer" } }] },
        { text: "The child changed them." }
      ],
      agents: {
        "CPWRITER-9": [
          {
            toolCalls: [
              { id: "call_w1", name: "write", arguments: { path: "new.txt", content: "from the child\n" } },
              { id: "call_e1", name: "edit", arguments: { path: "a.txt", old_string: "beta", new_string: "BETA" } }
            ]
          },
          { text: "Wrote new.txt and edited a.txt." }
        ]
      }
    })
    const events = await runTurn(sandbox, "delegate the changes")
    expect(fs.readFileSync(path.join(sandbox.workspace, "new.txt"), "utf8")).toBe("from the child\n")
    expect(fs.readFileSync(path.join(sandbox.workspace, "a.txt"), "utf8")).toBe("alpha\nBETA\n")
    // One files_changed event, the parent turn's (not the child's), listing the child's changes.
    const changedEvents = events.filter((event) => event.type === "files_changed")
    expect(changedEvents).toHaveLength(1)
    const changed = changedEvents[0] as { turn: number; agent?: unknown; files: Array<{ path: string; kind: string }> } | undefined
    expect(changed?.agent).toBeUndefined()
    expect(changed?.turn).toBe(1)
    expect(changed?.files.map((file) => `${file.kind} ${file.path}`)).toEqual(["modified a.txt", "added new.txt"])
    const id = await sessionIdOf(sandbox)

    // No --yes: the child's changes are the turn's own, not changes made outside Crystal.
    const rewound = await runCrystal(sandbox, ["rewind", "--session", id, "--to", "1"])
    expect(rewound.code, rewound.stderr).toBe(0)
    expect(rewound.stdout).toContain("2 files changed")
    expect(fs.existsSync(path.join(sandbox.workspace, "new.txt"))).toBe(false)
    expect(fs.readFileSync(path.join(sandbox.workspace, "a.txt"), "utf8")).toBe("alpha\nbeta\n")
    expect(workspaceState(sandbox)).toEqual(before)
  })
})
