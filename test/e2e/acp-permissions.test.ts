/**
 * `crystal acp`: every approval Crystal would ask goes to the client's session/request_permission,
 * and anything but an allow answer denies (fails closed).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import type { RequestPermissionResponse } from "@agentclientprotocol/sdk"
import { makeSandbox, writeLocalConfig } from "../support/crystal.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { allowOnce, reject, startAcp, updatesOf, type AcpClient, type AcpClientOptions } from "../support/acp-client.ts"

const fakeServer = useFakeServers()
const clients: Array<AcpClient> = []
afterEach(async () => {
  await Promise.all(clients.splice(0).map((client) => client.close()))
})

type Body = { messages: Array<{ role: string; content?: unknown }> }

/** A session in the default approval mode, whose model runs `touch FILE` (a command: it asks). */
const touching = async (options: AcpClientOptions, file = "made.txt") => {
  const sandbox = await makeSandbox()
  const fake = await fakeServer()
  await writeLocalConfig(sandbox, fake.url)
  const client = startAcp(sandbox, options)
  clients.push(client)
  await client.initialize()
  const session = await client.agent.request("session/new", { cwd: sandbox.workspace, mcpServers: [] })
  fake.script([{ toolCalls: [{ id: "touch-1", name: "bash", arguments: { command: `touch ${file}` } }] }, { text: "Done." }])
  const prompt = client.agent.request("session/prompt", { sessionId: session.sessionId, prompt: [{ type: "text", text: "make the file" }] })
  return { sandbox, fake, client, session, prompt, made: () => fs.existsSync(path.join(sandbox.workspace, file)) }
}

const lastSent = (fake: { requests: ReadonlyArray<{ body: unknown }> }) => JSON.stringify((fake.requests.at(-1)?.body as Body).messages.at(-1))

describe("crystal acp permissions", () => {
  it("asks the client with allow once, allow for this session and reject, naming the call; allow once runs it", async () => {
    const run = await touching({ permission: allowOnce })
    expect((await run.prompt).stopReason).toBe("end_turn")
    expect(run.made()).toBe(true)
    expect(run.client.permissions).toHaveLength(1)
    const [asked] = run.client.permissions
    expect(asked?.sessionId).toBe(run.session.sessionId)
    expect(asked?.toolCall).toMatchObject({ toolCallId: "touch-1", title: "Run `touch made.txt`", kind: "execute" })
    expect(asked?.options.map((option) => [option.optionId, option.kind])).toEqual([
      ["allow-once", "allow_once"],
      ["allow-always", "allow_always"],
      ["reject", "reject_once"]
    ])
    const statuses = updatesOf(run.client, run.session.sessionId, "tool_call_update").map((update) => update.status)
    expect(statuses).toEqual(["in_progress", "completed"])
  })

  it("reject: the command does not run and the model is told it was denied", async () => {
    const run = await touching({ permission: reject })
    expect((await run.prompt).stopReason).toBe("end_turn")
    expect(run.made()).toBe(false)
    expect(lastSent(run.fake)).toContain("Denied by the operator")
    expect(updatesOf(run.client, run.session.sessionId, "tool_call_update").map((update) => update.status)).toEqual(["failed"])
  })

  it("a client that answers with an error denies (fails closed)", async () => {
    const run = await touching({ permission: async () => Promise.reject(new Error("the dialog crashed")) })
    expect((await run.prompt).stopReason).toBe("end_turn")
    expect(run.made()).toBe(false)
    expect(lastSent(run.fake)).toContain("Denied by the operator")
    expect(run.client.stderr()).toContain("did not answer a permission request")
  })

  it("a cancelled permission request denies", async () => {
    const run = await touching({ permission: async (): Promise<RequestPermissionResponse> => ({ outcome: { outcome: "cancelled" } }) })
    expect((await run.prompt).stopReason).toBe("end_turn")
    expect(run.made()).toBe(false)
    expect(lastSent(run.fake)).toContain("Denied by the operator")
  })

  it("an unknown option denies", async () => {
    const run = await touching({ permission: async (): Promise<RequestPermissionResponse> => ({ outcome: { outcome: "selected", optionId: "allow-everything" } }) })
    expect((await run.prompt).stopReason).toBe("end_turn")
    expect(run.made()).toBe(false)
  })

  it("session/cancel while the client decides: the request is cancelled, nothing runs and the prompt answers cancelled", async () => {
    let aborted = false
    let asked: () => void = () => undefined
    const waiting = new Promise<void>((resolve) => (asked = resolve))
    const run = await touching({
      permission: (_request, signal) =>
        new Promise<RequestPermissionResponse>((resolve) => {
          asked()
          signal.addEventListener("abort", () => {
            aborted = true
            // Answered only after the cancel, as the protocol asks of a client: too late to allow.
            resolve({ outcome: { outcome: "selected", optionId: "allow-once" } })
          })
        })
    })
    await waiting
    await run.client.agent.notify("session/cancel", { sessionId: run.session.sessionId })
    expect((await run.prompt).stopReason).toBe("cancelled")
    await new Promise((resolve) => setTimeout(resolve, 300))
    expect(aborted).toBe(true)
    expect(run.made()).toBe(false)
    expect(run.fake.requests).toHaveLength(1)
    expect(updatesOf(run.client, run.session.sessionId, "tool_call_update").map((update) => update.status)).toEqual(["failed"])
  })

  it("allow for this session: the same command is not asked again", async () => {
    const run = await touching({ permission: async () => ({ outcome: { outcome: "selected", optionId: "allow-always" } }) })
    expect((await run.prompt).stopReason).toBe("end_turn")
    fs.rmSync(path.join(run.sandbox.workspace, "made.txt"))
    run.fake.script([{ toolCalls: [{ id: "touch-2", name: "bash", arguments: { command: "touch made.txt" } }] }, { text: "Again." }])
    const again = await run.client.agent.request("session/prompt", { sessionId: run.session.sessionId, prompt: [{ type: "text", text: "again" }] })
    expect(again.stopReason).toBe("end_turn")
    expect(run.made()).toBe(true)
    expect(run.client.permissions).toHaveLength(1)
  })
})
