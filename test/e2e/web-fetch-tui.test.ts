/**
 * web_fetch's approval in a terminal session (tmux): the dialog offers "Allow this host for the
 * session", and once chosen a second fetch from that host runs without asking.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { crystalBinary, makeSandbox, writeLocalConfig } from "../support/crystal.ts"
import { startFakeLlm, type RecordedRequest, type Reply } from "../support/fake-llm/server.ts"
import { openTerminal, tmuxAvailable } from "../support/tmux.ts"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const isTitleRequest = (request: RecordedRequest) => JSON.stringify(request.body).includes("Name this coding session")
const titleOr = (reply: Reply): Reply => (request) => (isTitleRequest(request) ? { text: "Fetching" } : typeof reply === "function" ? reply(request) : reply)

describe.runIf(tmuxAvailable())("web_fetch in a terminal session", () => {
  it("asks once with 'Allow this host for the session', then fetches from that host without asking", async () => {
    const requests: Array<string> = []
    const site = http.createServer((request, response) => {
      requests.push(request.url ?? "")
      response.writeHead(200, { "content-type": "text/plain" }).end(`page ${request.url}`)
    })
    await new Promise<void>((resolve) => site.listen(0, "127.0.0.1", resolve))
    cleanups.push(() => new Promise<void>((resolve) => site.close(() => resolve())))
    const base = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
    const sandbox = await makeSandbox()
    const fake = await startFakeLlm()
    cleanups.push(() => fake.close())
    await writeLocalConfig(sandbox, fake.url, { webFetch: { allowPrivate: ["127.0.0.1"] } })
    fake.script([
      titleOr({ toolCalls: [{ name: "web_fetch", arguments: { url: `${base}/one` } }] }),
      titleOr({ toolCalls: [{ name: "web_fetch", arguments: { url: `${base}/two` } }] }),
      titleOr({ text: "Read both pages." }),
      titleOr({ text: "Fetching" })
    ])
    const terminal = openTerminal([crystalBinary], { cwd: sandbox.workspace, env: { ...sandbox.env, TERM: "xterm" } })
    cleanups.push(() => terminal.close())
    await terminal.waitFor(/approval \w+ · local\/test-model/)
    terminal.type("read the two pages")
    terminal.press("Enter")
    const dialog = await terminal.waitFor(/Allow once/)
    expect(dialog).toContain(`Allow web_fetch: fetch ${base}/one`)
    expect(dialog).toContain("Allow this host for the session")
    terminal.press("Down")
    await terminal.waitFor(/every web_fetch from 127\.0\.0\.1/)
    terminal.press("Enter")
    await terminal.waitFor(/Read both pages\./)
    expect(requests).toEqual(["/one", "/two"])
  })
})
