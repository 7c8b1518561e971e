/** MCP servers through the compiled binary: `crystal run` against the fake model server calling real MCP tools. */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, runCrystal, writeLocalConfig } from "../support/crystal.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { everythingServer, probeServer, silentServer, startEverythingHttp, testMarker } from "../support/mcp/servers.ts"
import { processesWith } from "../support/processes.ts"

const fakeServer = useFakeServers()

type Body = { messages: Array<{ role: string; content?: unknown }>; tools?: Array<{ function: { name: string; description?: string } }> }

const node = process.execPath

describe("MCP servers in crystal run", () => {
  it("offers the server's tools after the built-in ones and runs a call the approval mode lets through", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url, { mcpServers: { everything: { command: node, args: [everythingServer, "stdio"] } } })
    fake.script([{ toolCalls: [{ name: "mcp__everything__echo", arguments: { message: "from the model" } }] }, { text: "Done." }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "echo something"])
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    const names = (fake.requests[0]?.body as Body).tools?.map((tool) => tool.function.name) ?? []
    const firstMcp = names.findIndex((name) => name.startsWith("mcp__"))
    expect(firstMcp).toBeGreaterThan(names.indexOf("bash"))
    expect(names.slice(firstMcp).every((name) => name.startsWith("mcp__everything__"))).toBe(true)
    expect(names).toContain("mcp__everything__get-sum")
    const events = jsonLines(result.stdout)
    expect(events.find((event) => event["type"] === "approval")).toMatchObject({ outcome: "allowed" })
    expect(events.find((event) => event["type"] === "tool_result")).toMatchObject({ name: "mcp__everything__echo", ok: true, output: "Echo: from the model" })
    const second = fake.requests[1]?.body as Body
    expect(JSON.stringify(second.messages.at(-1))).toContain("Echo: from the model")
  })

  it("asks for an MCP call in the default approval mode (denied in crystal run), naming server, tool and arguments", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url, { mcpServers: { everything: { command: node, args: [everythingServer, "stdio"] } } })
    fake.script([{ toolCalls: [{ name: "mcp__everything__get-sum", arguments: { a: 1, b: 2 } }] }, { text: "Denied, fine." }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "add"])
    expect(result.code).toBe(0)
    const approval = jsonLines(result.stdout).find((event) => event["type"] === "approval")
    expect(approval).toMatchObject({ outcome: "denied", by: "nobody to ask" })
    expect(JSON.stringify(approval)).toContain('MCP server everything: get-sum {\\"a\\":1,\\"b\\":2}')
  })

  it("reports a call's progress as tool_progress events between its tool_call and tool_result; text mode writes no line for a short call", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url, { mcpServers: { everything: { command: node, args: [everythingServer, "stdio"] } } })
    const name = "mcp__everything__trigger-long-running-operation"
    // A notification every 0.5 s: more than the throttle's interval apart, so each one shows.
    fake.script([{ toolCalls: [{ name, arguments: { duration: 1.5, steps: 3 } }] }, { text: "Done." }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "run it"])
    expect(result.code).toBe(0)
    const events = jsonLines(result.stdout)
    const id = events.find((event) => event["type"] === "tool_call")?.["id"]
    const progress = events.filter((event) => event["type"] === "tool_progress")
    // The last one may arrive with the result, and is then not shown.
    expect(progress.slice(0, 2)).toEqual([
      { type: "tool_progress", id, name, progress: 1, total: 3 },
      { type: "tool_progress", id, name, progress: 2, total: 3 }
    ])
    const types = events.map((event) => event["type"])
    expect(types.indexOf("tool_call")).toBeLessThan(types.indexOf("tool_progress"))
    expect(types.lastIndexOf("tool_progress")).toBeLessThan(types.indexOf("tool_result"))

    fake.script([{ toolCalls: [{ name, arguments: { duration: 1.5, steps: 3 } }] }, { text: "Done." }])
    const text = await runCrystal(sandbox, ["run", "--approval", "full", "run it"])
    expect(text.code).toBe(0)
    expect(text.stderr.split("\n").filter((line) => line !== "")).toEqual([
      expect.stringMatching(/^→ mcp__everything__trigger-long-running-operation /),
      expect.stringMatching(/^ {2}✓ 1 line \(\d+ ms\)$/)
    ])
  })

  it("calls a server over streamable HTTP", async () => {
    const server = await startEverythingHttp("streamableHttp")
    try {
      const sandbox = await makeSandbox()
      const fake = await fakeServer()
      await writeLocalConfig(sandbox, fake.url, { mcpServers: { web: { url: server.url } } })
      fake.script([{ toolCalls: [{ name: "mcp__web__get-sum", arguments: { a: 20, b: 22 } }] }, { text: "42." }])
      const result = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "add"])
      expect(result.code).toBe(0)
      expect(String(jsonLines(result.stdout).find((event) => event["type"] === "tool_result")?.["output"])).toContain("42")
    } finally {
      server.child.kill("SIGKILL")
    }
  })

  it("attaches an MCP image result through the media store for an image-capable model", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    const file = await writeLocalConfig(sandbox, fake.url, { mcpServers: { everything: { command: node, args: [everythingServer, "stdio"] } } })
    const config = JSON.parse(await fs.readFile(file, "utf8")) as { providers: { local: { models: Record<string, Record<string, unknown>> } } }
    config.providers.local.models["test-model"] = { contextWindow: 32768, imageInput: true }
    await fs.writeFile(file, JSON.stringify(config))
    fake.script([{ toolCalls: [{ name: "mcp__everything__get-tiny-image", arguments: {} }] }, { text: "A tiny image." }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "show me"])
    expect(result.code).toBe(0)
    const output = String(jsonLines(result.stdout).find((event) => event["type"] === "tool_result")?.["output"])
    expect(output).toMatch(/\[Image #1\] image from everything\/get-tiny-image \(image\/png\)/)
    expect((await fs.readdir(path.join(sandbox.home, "media"))).length).toBe(1)
    expect(JSON.stringify(fake.requests[1]?.body)).toContain("data:image/png;base64,")
  })

  it("a server that never answers initialize delays the first request at most its startupTimeoutSeconds, with a note", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    const marker = testMarker()
    await writeLocalConfig(sandbox, fake.url, { mcpServers: { silent: { command: node, args: [silentServer, marker], startupTimeoutSeconds: 1 } } })
    fake.script([{ text: "Hello." }])
    const result = await runCrystal(sandbox, ["run", "hi"])
    expect(result.code).toBe(0)
    expect(result.stderr).toContain("MCP server silent is still starting after 1 s (startupTimeoutSeconds); its tools join when it is ready.")
    expect(await processesWith(marker)).toEqual([])
  })

  it("a server that dies mid-call is a tool error; the turn goes on", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url, { mcpServers: { probe: { command: node, args: [probeServer] } } })
    fake.script([{ toolCalls: [{ name: "mcp__probe__die", arguments: {} }] }, { text: "It died." }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "try it"])
    expect(result.code).toBe(0)
    const toolResult = jsonLines(result.stdout).find((event) => event["type"] === "tool_result")
    expect(toolResult).toMatchObject({ name: "mcp__probe__die", ok: false })
    expect(String(toolResult?.["output"])).toMatch(/MCP server probe: die failed/)
    expect(fake.requests).toHaveLength(2)
  })

  it("leaves none of a server's processes behind when the run ends, grandchildren included", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    const log = path.join(sandbox.workspace, "probe.log")
    const marker = testMarker()
    await writeLocalConfig(sandbox, fake.url, { mcpServers: { probe: { command: node, args: [probeServer, marker], env: { MCP_PROBE_LOG: log } } } })
    fake.script([{ toolCalls: [{ name: "mcp__probe__spawn", arguments: {} }] }, { text: "Spawned." }])
    const result = await runCrystal(sandbox, ["run", "--approval", "full", "spawn"])
    expect(result.code).toBe(0)
    const pids = (await fs.readFile(log, "utf8")).trim().split(" ").slice(1).map(Number)
    expect(pids).toHaveLength(2)
    const alive = await Promise.all(pids.map((pid) => fs.readFile(`/proc/${pid}/stat`, "utf8").then((stat) => !/\) [ZX] /.test(stat), () => false)))
    expect(alive).toEqual([false, false])
    expect(await processesWith(marker)).toEqual([])
  })

  it("a bad mcpServers entry refuses to start with one line naming the field", async () => {
    const sandbox = await makeSandbox()
    const fake = await fakeServer()
    const file = await writeLocalConfig(sandbox, fake.url, { mcpServers: { broken: { args: ["x"] } } })
    const before = await fs.readFile(file, "utf8")
    const result = await runCrystal(sandbox, ["run", "hi"])
    expect(result.code).toBe(2)
    expect(result.stderr.trim()).toBe(`crystal: ${file}: mcpServers.broken: needs "command" (a stdio server) or "url" (an HTTP server)`)
    expect(await fs.readFile(file, "utf8")).toBe(before)
  })
})

describe("crystal mcp list|show", () => {
  it("lists the configured servers without starting them, as a table or text", async () => {
    const sandbox = await makeSandbox()
    const marker = testMarker()
    await fs.writeFile(
      path.join(sandbox.home, "config.json"),
      JSON.stringify({ mcpServers: { everything: { command: node, args: [everythingServer, "stdio", marker] }, web: { url: "http://127.0.0.1:9/mcp", enabled: false } } })
    )
    const table = await runCrystal(sandbox, ["mcp", "list"])
    expect(table.code).toBe(0)
    expect(table.stdout.split("\n")[0]).toMatch(/^NAME\s+SOURCE\s+TRUSTED\s+TRANSPORT\s+ENABLED\s+TRUST ANNOTATIONS\s+SAMPLING\s+COMMAND OR URL$/)
    expect(table.stdout).toMatch(/^web\s+config\.json\s+-\s+http\s+no\s+no\s+no\s+http:\/\/127\.0\.0\.1:9\/mcp$/m)
    const text = await runCrystal(sandbox, ["mcp", "list", "--format", "text"])
    expect(text.stdout).toBe(`everything\tconfig.json\t-\tstdio\tyes\tno\tno\t${node} ${everythingServer} stdio ${marker}\nweb\tconfig.json\t-\thttp\tno\tno\tno\thttp://127.0.0.1:9/mcp\n`)
    expect(await processesWith(marker)).toEqual([])
  })

  it("show NAME starts the server, lists its tools as the model sees them and stops it; a failing one exits 1 with its reason", async () => {
    const sandbox = await makeSandbox()
    const marker = testMarker()
    await fs.writeFile(
      path.join(sandbox.home, "config.json"),
      JSON.stringify({ mcpServers: { everything: { command: node, args: [everythingServer, "stdio", marker] }, gone: { command: "crystal-no-such-server" } } })
    )
    const shown = await runCrystal(sandbox, ["mcp", "show", "everything", "--format", "text"])
    expect(shown.code).toBe(0)
    expect(shown.stdout).toContain("status\tready\n")
    expect(shown.stdout).toMatch(/^mcp__everything__get-sum\tget-sum\tReturns the sum of two numbers$/m)
    expect(await processesWith(marker)).toEqual([])
    const gone = await runCrystal(sandbox, ["mcp", "show", "gone"])
    expect(gone.code).toBe(1)
    expect(gone.stderr).toBe("crystal: MCP server gone: crystal-no-such-server: command not found\n")
    const unknown = await runCrystal(sandbox, ["mcp", "show", "nope"])
    expect(unknown.code).toBe(2)
    expect(unknown.stderr).toMatch(/no MCP server 'nope' in .*config\.json \(configured: everything, gone\)/)
  })
})
