/**
 * `crystal acp` with a client that offers fs/read_text_file and fs/write_text_file: reads and edits
 * go through the editor's buffers (unsaved changes seen, changes made there, not on disk), still
 * under Crystal's path fence and approvals.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import type { ReadTextFileRequest, WriteTextFileRequest } from "@agentclientprotocol/sdk"
import { makeSandbox, writeLocalConfig } from "../support/crystal.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { reject, startAcp, updatesOf, type AcpClient } from "../support/acp-client.ts"

const fakeServer = useFakeServers()
const clients: Array<AcpClient> = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()))
})

/** An editor with open buffers: reads come from a buffer when one is open, else from disk; writes land in buffers only. */
const editor = (buffers: Map<string, string>) => {
  const reads: Array<ReadTextFileRequest> = []
  const writes: Array<WriteTextFileRequest> = []
  return {
    reads,
    writes,
    fs: {
      read: async (request: ReadTextFileRequest) => {
        reads.push(request)
        return { content: buffers.get(request.path) ?? fs.readFileSync(request.path, "utf8") }
      },
      write: async (request: WriteTextFileRequest) => {
        writes.push(request)
        buffers.set(request.path, request.content)
      }
    }
  }
}

const setup = async (modeId: string, permission = reject) => {
  const sandbox = await makeSandbox({ "notes.txt": "one\ntwo\n" })
  const fake = await fakeServer()
  await writeLocalConfig(sandbox, fake.url)
  const notes = path.join(sandbox.workspace, "notes.txt")
  const buffers = new Map([[notes, "one\ntwo, unsaved\n"]])
  const open = editor(buffers)
  const client = startAcp(sandbox, { fs: open.fs, permission })
  clients.push(client)
  await client.initialize()
  const session = await client.agent.request("session/new", { cwd: sandbox.workspace, mcpServers: [] })
  await client.agent.request("session/set_mode", { sessionId: session.sessionId, modeId })
  const prompt = (text: string) => client.agent.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text }] })
  return { sandbox, fake, client, session, notes, buffers, open, prompt }
}

type Body = { messages: Array<{ role: string; content?: unknown }> }

describe("crystal acp through the editor's files", () => {
  it("reads and edits the open buffer, unsaved changes included, and leaves the disk alone", async () => {
    const run = await setup("edit")
    run.fake.script([
      { toolCalls: [{ id: "read-1", name: "read", arguments: { path: "notes.txt" } }] },
      { toolCalls: [{ id: "edit-1", name: "edit", arguments: { path: "notes.txt", old_string: "two, unsaved", new_string: "three" } }] },
      { text: "Edited." }
    ])
    expect((await run.prompt("change the buffer")).stopReason).toBe("end_turn")
    expect(JSON.stringify((run.fake.requests[1]?.body as Body).messages.at(-1))).toContain("two, unsaved")
    expect(run.open.writes).toEqual([{ sessionId: run.session.sessionId, path: run.notes, content: "one\nthree\n" }])
    expect(run.buffers.get(run.notes)).toBe("one\nthree\n")
    expect(fs.readFileSync(run.notes, "utf8")).toBe("one\ntwo\n")
    expect(run.open.reads.every((read) => read.sessionId === run.session.sessionId && read.path === run.notes)).toBe(true)
    const done = updatesOf(run.client, run.session.sessionId, "tool_call_update").find((update) => update.toolCallId === "edit-1" && update.status === "completed")
    expect(done?.content?.[0]).toEqual({ type: "diff", path: run.notes, oldText: "one\ntwo, unsaved\n", newText: "one\nthree\n" })
  })

  it("write goes to the editor too", async () => {
    const run = await setup("edit")
    run.fake.script([{ toolCalls: [{ id: "write-1", name: "write", arguments: { path: "src/new.txt", content: "fresh\n" } }] }, { text: "Written." }])
    expect((await run.prompt("write a file")).stopReason).toBe("end_turn")
    const file = path.join(run.sandbox.workspace, "src", "new.txt")
    expect(run.open.writes).toEqual([{ sessionId: run.session.sessionId, path: file, content: "fresh\n" }])
    expect(fs.existsSync(file)).toBe(false)
  })

  it("a write of the disk's content over an unsaved buffer still goes to the editor", async () => {
    const run = await setup("edit")
    run.fake.script([{ toolCalls: [{ id: "write-same", name: "write", arguments: { path: "notes.txt", content: "one\ntwo\n" } }] }, { text: "Written." }])
    expect((await run.prompt("restore the file")).stopReason).toBe("end_turn")
    expect(run.open.writes).toEqual([{ sessionId: run.session.sessionId, path: run.notes, content: "one\ntwo\n" }])
    expect(run.buffers.get(run.notes)).toBe("one\ntwo\n")
  })

  it("the editor is a transport, not an authority: a write outside the workspace still asks, and a rejected one never reaches the editor", async () => {
    const run = await setup("full")
    const outside = path.join(run.sandbox.home, "config.json")
    const before = fs.readFileSync(outside, "utf8")
    run.fake.script([{ toolCalls: [{ id: "write-out", name: "write", arguments: { path: outside, content: "{}" } }] }, { text: "Refused." }])
    expect((await run.prompt("overwrite the config")).stopReason).toBe("end_turn")
    expect(run.client.permissions.map((asked) => asked.toolCall.toolCallId)).toEqual(["write-out"])
    expect(run.open.writes).toEqual([])
    expect(run.open.reads).toEqual([])
    expect(fs.readFileSync(outside, "utf8")).toBe(before)
  })

  it("an edit plan mode refuses never makes the editor read the file", async () => {
    const run = await setup("plan")
    const outside = path.join(run.sandbox.home, "config.json")
    run.fake.script([
      { toolCalls: [{ id: "edit-out", name: "edit", arguments: { path: outside, old_string: "{", new_string: "[" } }] },
      { toolCalls: [{ id: "edit-in", name: "edit", arguments: { path: "notes.txt", old_string: "one", new_string: "uno" } }] },
      { text: "Refused." }
    ])
    expect((await run.prompt("edit the files")).stopReason).toBe("end_turn")
    expect(run.open.reads).toEqual([])
    expect(run.open.writes).toEqual([])
  })

  it("a read outside the fence in plan mode is refused before the editor is asked", async () => {
    const run = await setup("plan")
    const secret = path.join(run.sandbox.home, "config.json")
    run.fake.script([{ toolCalls: [{ id: "read-out", name: "read", arguments: { path: secret } }] }, { text: "Refused." }])
    expect((await run.prompt("read the config")).stopReason).toBe("end_turn")
    expect(run.open.reads).toEqual([])
  })
})
