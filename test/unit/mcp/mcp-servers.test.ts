/**
 * The session's MCP servers against real servers: @modelcontextprotocol/server-everything and
 * server-filesystem over stdio and HTTP, and the probe scripts of test/support/mcp for a server
 * that never answers initialize, one that dies mid-call, one that leaves grandchildren, progress
 * and list_changed.
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import { afterEach, describe, expect, it } from "vitest"
import { makePathFence } from "../../../src/approval/path-fence.ts"
import type { McpServerSettings } from "../../../src/config/schema.ts"
import { makeMcpServers, type McpServersShape } from "../../../src/mcp/mcp-servers.ts"
import { refusalNote } from "../../../src/mcp/tool-naming.ts"
import { Redactor } from "../../../src/secrets/redactor.ts"
import { noSecrets } from "../../../src/secrets/secrets.ts"
import { planServer } from "../../../src/mcp/server-config.ts"
import { isProcessAlive } from "../../../src/bash/process-tree.ts"
import { makeSpill } from "../../../src/tools/spill.ts"
import type { Tool, ToolContext, ToolOutput, ToolProgress } from "../../../src/tools/tool.ts"
import { everythingServer, filesystemServer, probeServer, promptsOnlyServer, silentServer, startEverythingHttp, structuredServer, testMarker } from "../../support/mcp/servers.ts"
import { processesWith } from "../../support/processes.ts"
import { tempDir } from "../../support/temp.ts"

const scopes: Array<Scope.CloseableScope> = []
afterEach(async () => {
  await Promise.all(scopes.splice(0).map((scope) => Effect.runPromise(Scope.close(scope, Exit.void))))
})

const baseEnv = (): Record<string, string> => {
  const env: Record<string, string> = {}
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value
  return env
}

const open = async (
  servers: Readonly<Record<string, McpServerSettings>>,
  workspace: string,
  env: Record<string, string | undefined> = process.env,
  secrets: ReadonlyArray<string> = []
) => {
  const scope = Effect.runSync(Scope.make())
  scopes.push(scope)
  const plans = Object.entries(servers).map(([name, settings]) => planServer(name, settings, { workspace, env, baseEnv: baseEnv() }))
  const mcp = await Effect.runPromise(makeMcpServers({ plans, roots: () => [workspace], redactor: Effect.runSync(Redactor.make(secrets)) }).pipe(Scope.extend(scope)))
  return { mcp, scope }
}

const context = async (workspace: string): Promise<ToolContext> => {
  const spillDir = await tempDir("crystal-mcp-spill-")
  return { fence: makePathFence(workspace, [{ dir: spillDir, access: "read" }]), sessionId: "test", secrets: noSecrets, spill: makeSpill(spillDir), spillDir }
}

const toolNamed = (mcp: McpServersShape, name: string): Tool => {
  const tool = mcp.tools().find((candidate) => candidate.name === name)
  if (tool === undefined) throw new Error(`no tool ${name} among ${mcp.tools().map((t) => t.name).join(", ")}`)
  return tool
}

const call = (tool: Tool, args: unknown, ctx: ToolContext): Promise<Exit.Exit<ToolOutput, unknown>> =>
  Effect.runPromiseExit(tool.run(args as never, ctx))

const outputOf = (exit: Exit.Exit<ToolOutput, unknown>): ToolOutput => {
  if (Exit.isFailure(exit)) throw new Error(`the call failed: ${JSON.stringify(exit.cause)}`)
  return exit.value
}

const failureOf = (exit: Exit.Exit<ToolOutput, unknown>): string => {
  if (Exit.isSuccess(exit)) throw new Error(`the call succeeded: ${exit.value.text}`)
  return JSON.stringify(exit.cause)
}

/** Zombies count as dead: this machine's init never reaps them. */
const alive = (pid: number): boolean => isProcessAlive(pid)

const stdio = (script: string, args: ReadonlyArray<string> = [], extra: Partial<McpServerSettings> = {}): McpServerSettings => ({
  command: process.execPath,
  args: [script, ...args],
  ...extra
})

describe("MCP servers over stdio (server-everything)", () => {
  it("offers the server's tools as mcp__everything__*, calls echo and get-sum, and classifies them at least write", async () => {
    const workspace = await tempDir()
    const { mcp } = await open({ everything: stdio(everythingServer, ["stdio"]) }, workspace)
    expect(await Effect.runPromise(mcp.beforeTurn)).toEqual([])
    const names = mcp.tools().map((tool) => tool.name)
    expect(names).toEqual(expect.arrayContaining(["mcp__everything__echo", "mcp__everything__get-sum", "mcp__everything__get-tiny-image", "mcp__everything__trigger-long-running-operation"]))
    const ctx = await context(workspace)
    expect(outputOf(await call(toolNamed(mcp, "mcp__everything__echo"), { message: "hello there" }, ctx)).text).toBe("Echo: hello there")
    expect(outputOf(await call(toolNamed(mcp, "mcp__everything__get-sum"), { a: 2, b: 40 }, ctx)).text).toContain("42")
    const sum = toolNamed(mcp, "mcp__everything__get-sum")
    const classification = await Effect.runPromise(sum.classify({ a: 1, b: 2 } as never, ctx))
    // get-sum says readOnlyHint, but the server's annotations are not trusted by default.
    expect(classification).toMatchObject({ risk: "medium", authority: "write", scope: "workspace" })
    expect(classification.summary).toBe('MCP server everything: get-sum {"a":1,"b":2}')
    expect(sum.modes).toEqual(["work"])
  })

  it("with trustAnnotations, a readOnlyHint tool is a read offered in plan mode too; tools.allow/deny filter the list", async () => {
    const workspace = await tempDir()
    const { mcp } = await open(
      { everything: stdio(everythingServer, ["stdio"], { trustAnnotations: true, tools: { allow: ["get-sum", "echo", "get-env"], deny: ["get-env"] } }) },
      workspace
    )
    await Effect.runPromise(mcp.beforeTurn)
    expect(mcp.tools().map((tool) => tool.name).sort()).toEqual(["mcp__everything__echo", "mcp__everything__get-sum"])
    const ctx = await context(workspace)
    const sum = toolNamed(mcp, "mcp__everything__get-sum")
    expect(await Effect.runPromise(sum.classify({ a: 1, b: 2 } as never, ctx))).toMatchObject({ risk: "low", authority: "read" })
    expect(sum.modes).toEqual(["plan", "work"])
  })

  it("returns structured content as JSON text and a tool's isError as a failed result", async () => {
    const workspace = await tempDir()
    const { mcp } = await open({ everything: stdio(everythingServer, ["stdio"]) }, workspace)
    await Effect.runPromise(mcp.beforeTurn)
    const ctx = await context(workspace)
    const structured = outputOf(await call(toolNamed(mcp, "mcp__everything__get-structured-content"), { location: "New York" }, ctx))
    expect(structured.text).toContain("temperature")
    const links = outputOf(await call(toolNamed(mcp, "mcp__everything__get-resource-links"), { count: 2 }, ctx))
    expect(links.text).toMatch(/\[resource link .+ demo:\/\/resource/)
    const reference = outputOf(await call(toolNamed(mcp, "mcp__everything__get-resource-reference"), { resourceType: "Text", resourceId: 1 }, ctx))
    expect(reference.text).toMatch(/\[resource demo:\/\/resource\/static\/document\/.*\]|\[resource demo:\/\/resource/)
  })

  it("trigger-long-running-operation outlives toolTimeoutSeconds because its progress notifications restart the timer; each reaches the call's progress", async () => {
    const workspace = await tempDir()
    const { mcp } = await open({ everything: stdio(everythingServer, ["stdio"], { toolTimeoutSeconds: 1 }) }, workspace)
    await Effect.runPromise(mcp.beforeTurn)
    const reported: Array<ToolProgress> = []
    const ctx: ToolContext = { ...(await context(workspace)), progress: (update) => void reported.push(update) }
    // 2.4 s in all, a progress notification every 0.6 s.
    const done = outputOf(await call(toolNamed(mcp, "mcp__everything__trigger-long-running-operation"), { duration: 2.4, steps: 4 }, ctx))
    expect(done.text).toBe("Long running operation completed. Duration: 2.4 seconds, Steps: 4.")
    // The SDK handles a notification a microtask late: the last one, read with the result, may come after it and is dropped.
    expect(reported.slice(0, 3)).toEqual([1, 2, 3].map((progress) => ({ progress, total: 4 })))
    expect(reported.slice(3)).toEqual(reported.length === 4 ? [{ progress: 4, total: 4 }] : [])
  })

  it("offers the workspace as its root", async () => {
    const workspace = await tempDir()
    const { mcp } = await open({ everything: stdio(everythingServer, ["stdio"]) }, workspace)
    await Effect.runPromise(mcp.beforeTurn)
    // get-roots-list is registered once the client said it supports roots: it joins after list_changed.
    await expect.poll(async () => {
      await Effect.runPromise(mcp.beforeTurn)
      return mcp.tools().some((tool) => tool.name === "mcp__everything__get-roots-list")
    }, { timeout: 5000 }).toBe(true)
    const roots = outputOf(await call(toolNamed(mcp, "mcp__everything__get-roots-list"), {}, await context(workspace)))
    expect(roots.text).toContain(`file://${workspace}`)
  })

  it("without an image service in the session, an image result is named, not lost", async () => {
    const workspace = await tempDir()
    const { mcp } = await open({ everything: stdio(everythingServer, ["stdio"]) }, workspace)
    await Effect.runPromise(mcp.beforeTurn)
    const image = outputOf(await call(toolNamed(mcp, "mcp__everything__get-tiny-image"), {}, await context(workspace)))
    expect(image.text).toMatch(/\[image from everything\/get-tiny-image \(image\/png, .*\) not shown: this session keeps no images\]/)
    expect(image.images).toBeUndefined()
  })
})

describe("MCP servers over HTTP (server-everything)", () => {
  for (const transport of ["streamableHttp", "sse"] as const) {
    it(`connects over ${transport === "sse" ? "the old HTTP+SSE transport (fallback)" : "streamable HTTP"} and calls echo`, async () => {
      const server = await startEverythingHttp(transport)
      try {
        const workspace = await tempDir()
        const { mcp } = await open({ web: { url: server.url } }, workspace)
        expect(await Effect.runPromise(mcp.beforeTurn)).toEqual([])
        expect(mcp.status()[0]).toMatchObject({ status: "ready", transport: transport === "sse" ? "HTTP+SSE" : "streamable HTTP" })
        expect(outputOf(await call(toolNamed(mcp, "mcp__web__echo"), { message: "over http" }, await context(workspace))).text).toBe("Echo: over http")
      } finally {
        server.child.kill("SIGKILL")
      }
    })
  }

  it("an HTTP server that is not there is one note naming it, and the others go on", async () => {
    const workspace = await tempDir()
    const { mcp } = await open({ gone: { url: "http://127.0.0.1:9/mcp" }, everything: stdio(everythingServer, ["stdio"]) }, workspace)
    const notes = await Effect.runPromise(mcp.beforeTurn)
    expect(notes).toHaveLength(1)
    expect(notes[0]).toMatch(/^MCP server gone failed: http:\/\/127\.0\.0\.1:9\/mcp: .+; its tools are not available\.$/)
    expect(mcp.tools().some((tool) => tool.name === "mcp__everything__echo")).toBe(true)
  })
})

describe("MCP server-filesystem", () => {
  it("lists and reads files of the directory it was given", async () => {
    const workspace = await tempDir()
    await fs.writeFile(path.join(workspace, "notes.txt"), "remember the milk\n")
    const { mcp } = await open({ files: stdio(filesystemServer, [workspace]) }, workspace)
    await Effect.runPromise(mcp.beforeTurn)
    const ctx = await context(workspace)
    const read = outputOf(await call(toolNamed(mcp, "mcp__files__read_text_file"), { path: path.join(workspace, "notes.txt") }, ctx))
    expect(read.text).toContain("remember the milk")
    const outside = await call(toolNamed(mcp, "mcp__files__read_text_file"), { path: "/etc/hostname" }, ctx)
    expect(Exit.isSuccess(outside) && outside.value.isError).toBe(true)
  })
})

describe("MCP tool names that clash", () => {
  it("server probe__x's echo and server probe's x__echo are both mcp__probe__x__echo: the later gets a distinct name, one note names both", async () => {
    const workspace = await tempDir()
    const { mcp } = await open({ probe__x: stdio(everythingServer, ["stdio"]), probe: stdio(probeServer, [], { env: { MCP_PROBE_TOOL: "x__echo" } }) }, workspace)
    const notes = await Effect.runPromise(mcp.beforeTurn)
    const names = mcp.tools().map((tool) => tool.name)
    expect(new Set(names).size).toBe(names.length)
    const renamed = names.find((name) => /^mcp__probe__x__echo_[0-9a-f]{6}$/.test(name))
    expect(renamed).toBeDefined()
    expect(notes).toEqual([
      `MCP tool names clash: server probe__x's tool echo and server probe's tool x__echo are both mcp__probe__x__echo; the first keeps the name, the second is offered as ${renamed}.`
    ])
    // Each name calls its own server's tool, and an "allow for this session" of one is not the other's.
    const ctx = await context(workspace)
    expect(outputOf(await call(toolNamed(mcp, "mcp__probe__x__echo"), { message: "hi" }, ctx)).text).toBe("Echo: hi")
    const probeTool = toolNamed(mcp, renamed ?? "")
    expect(outputOf(await call(probeTool, { message: "hi" }, ctx)).text).toBe("probe x__echo: hi")
    const grantOf = async (tool: Tool) => (await Effect.runPromise(tool.classify({ message: "hi" } as never, ctx))).grantKey
    expect(await grantOf(probeTool)).toBe('mcp:["probe","x__echo"]')
    expect(await grantOf(toolNamed(mcp, "mcp__probe__x__echo"))).toBe('mcp:["probe__x","echo"]')
    expect(mcp.status().find((server) => server.name === "probe")?.tools.find((tool) => tool.mcpName === "x__echo")?.name).toBe(renamed)
    // The names stay when the lists are read again, and the clash is not said twice.
    expect(await Effect.runPromise(mcp.restart("probe"))).toMatch(/^MCP server probe restarted/)
    expect(mcp.tools().map((tool) => tool.name)).toEqual(expect.arrayContaining(["mcp__probe__x__echo", renamed]))
    expect(await Effect.runPromise(mcp.beforeTurn)).toEqual([])
  })
})

describe("MCP tool names that hold a secret", () => {
  it("are not offered (the whole key, or a piece from its middle), and the note does not repeat them", async () => {
    const key = `sk-${randomBytes(24).toString("hex")}`
    const workspace = await tempDir()
    const { mcp } = await open(
      {
        whole: stdio(probeServer, [], { env: { MCP_PROBE_TOOL: `leak_${key}` } }),
        piece: stdio(probeServer, [], { env: { MCP_PROBE_TOOL: `x.${key.slice(7, 21)}` } })
      },
      workspace,
      process.env,
      [key]
    )
    const notes = await Effect.runPromise(mcp.beforeTurn)
    expect(notes).toEqual([refusalNote("whole", 1), refusalNote("piece", 1)])
    expect(notes[0]).toBe("MCP server whole: 1 tool is not offered: its name holds a secret of this session (a key from Crystal's environment or a server's credential, or a piece of one).")
    const names = mcp.tools().map((tool) => tool.name)
    expect(names).toEqual(expect.arrayContaining(["mcp__whole__hang", "mcp__piece__hang"]))
    expect(names.some((name) => name.includes(key.slice(7, 19)))).toBe(false)
    expect(mcp.status().map((server) => server.refusedTools)).toEqual([1, 1])
    // Listed again (a restart): the same refusal is not said twice.
    expect(await Effect.runPromise(mcp.restart("whole"))).toMatch(/^MCP server whole restarted/)
    expect(await Effect.runPromise(mcp.beforeTurn)).toEqual([])
    expect(mcp.tools().map((tool) => tool.name)).toEqual(names)
  })
})

describe("what an MCP server says of itself", () => {
  it("a failure quoting the server's stderr has the session's secrets redacted, in the note and in /mcp", async () => {
    const key = `sk-${randomBytes(24).toString("hex")}`
    const workspace = await tempDir()
    const { mcp } = await open({ loud: { command: "sh", args: ["-c", `echo "OPENAI_API_KEY=${key}" >&2; exit 3`] } }, workspace, process.env, [key])
    const notes = await Effect.runPromise(mcp.beforeTurn)
    expect(notes).toEqual([expect.stringMatching(/^MCP server loud failed: .*OPENAI_API_KEY=\[redacted\].*; its tools are not available\.$/)])
    expect(mcp.status()[0]?.lastError).toMatch(/OPENAI_API_KEY=\[redacted\]/)
    expect(JSON.stringify({ notes, lastError: mcp.status()[0]?.lastError })).not.toContain(key.slice(0, 12))
  })
})

describe("an MCP server without tools", () => {
  it("is ready with none: its tools are not listed, since it did not declare the tools capability", async () => {
    const workspace = await tempDir()
    const { mcp } = await open({ prompts: stdio(promptsOnlyServer) }, workspace)
    expect(await Effect.runPromise(mcp.beforeTurn)).toEqual([])
    expect(mcp.status().find((server) => server.name === "prompts")).toMatchObject({ status: "ready", lastError: undefined })
    expect(mcp.tools()).toEqual([])
  })
})

describe("output schemas", () => {
  it("are checked on each result, and one that cannot be compiled fails only its own tool's calls", async () => {
    const workspace = await tempDir()
    const { mcp } = await open({ s: stdio(structuredServer) }, workspace)
    expect(await Effect.runPromise(mcp.beforeTurn)).toEqual([])
    expect(mcp.tools().map((tool) => tool.name)).toEqual(["mcp__s__good", "mcp__s__wrong", "mcp__s__malformed"])
    const ctx = await context(workspace)
    expect(outputOf(await call(toolNamed(mcp, "mcp__s__good"), {}, ctx)).text).toBe('{"n":1}')
    expect(JSON.stringify((await call(toolNamed(mcp, "mcp__s__wrong"), {}, ctx)))).toContain("does not match the tool's output schema")
    expect(JSON.stringify((await call(toolNamed(mcp, "mcp__s__malformed"), {}, ctx)))).toContain("Failed to validate structured content")
    expect(outputOf(await call(toolNamed(mcp, "mcp__s__good"), {}, ctx)).text).toBe('{"n":1}')
  })

  it("of two servers that give different schemas one $id are each checked against their own", async () => {
    const workspace = await tempDir()
    const { mcp } = await open(
      {
        a: stdio(structuredServer, [], { env: { STRUCTURED_ID: "urn:example:result", STRUCTURED_FIELD: "n" } }),
        b: stdio(structuredServer, [], { env: { STRUCTURED_ID: "urn:example:result", STRUCTURED_FIELD: "s" } })
      },
      workspace
    )
    await Effect.runPromise(mcp.beforeTurn)
    const ctx = await context(workspace)
    expect(outputOf(await call(toolNamed(mcp, "mcp__a__good"), {}, ctx)).text).toBe('{"n":1}')
    expect(outputOf(await call(toolNamed(mcp, "mcp__b__good"), {}, ctx)).text).toBe('{"s":1}')
  })
})

describe("MCP servers that misbehave", () => {
  it("a server that never answers initialize holds the first turn at most startupTimeoutSeconds, with a note", async () => {
    const workspace = await tempDir()
    const marker = testMarker()
    const { mcp, scope } = await open({ silent: stdio(silentServer, [marker], { startupTimeoutSeconds: 0.5 }), everything: stdio(everythingServer, ["stdio"]) }, workspace)
    const notes = await Effect.runPromise(mcp.beforeTurn)
    expect(notes).toEqual(["MCP server silent is still starting after 0.5 s (startupTimeoutSeconds); its tools join when it is ready."])
    expect(mcp.status().find((server) => server.name === "silent")?.status).toBe("starting")
    expect(mcp.tools().some((tool) => tool.name === "mcp__everything__echo")).toBe(true)
    expect(await processesWith(marker)).toHaveLength(1)
    // Closing the session while it still starts kills it, without waiting for initialize to time out.
    await Effect.runPromise(Scope.close(scope, Exit.void))
    scopes.splice(scopes.indexOf(scope), 1)
    expect(await processesWith(marker)).toEqual([])
  })

  it("a missing ${env:VAR} or command is one note naming the server and the reason", async () => {
    const workspace = await tempDir()
    const { mcp } = await open(
      { needs: stdio(probeServer, [], { env: { TOKEN: "${env:CRYSTAL_TEST_UNSET_TOKEN}" } }), nothing: { command: "crystal-no-such-mcp-server" } },
      workspace,
      {}
    )
    expect(await Effect.runPromise(mcp.beforeTurn)).toEqual([
      "MCP server needs failed: env.TOKEN names ${env:CRYSTAL_TEST_UNSET_TOKEN}, which is not set; its tools are not available.",
      "MCP server nothing failed: crystal-no-such-mcp-server: command not found; its tools are not available."
    ])
  })

  it("a server that dies mid-call fails that call; the failure is a note on the next turn", async () => {
    const workspace = await tempDir()
    const { mcp } = await open({ probe: stdio(probeServer) }, workspace)
    await Effect.runPromise(mcp.beforeTurn)
    const failure = failureOf(await call(toolNamed(mcp, "mcp__probe__die"), {}, await context(workspace)))
    expect(failure).toMatch(/MCP server probe: die failed: .*Connection closed/)
    const notes = await Effect.runPromise(mcp.beforeTurn)
    expect(notes).toEqual(["MCP server probe failed: the server process exited; its tools are not available."])
    expect(mcp.tools()).toEqual([])
  })

  it("closing the session kills the server's whole tree, grandchildren and a setsid daemon included", async () => {
    const workspace = await tempDir()
    const log = path.join(workspace, "probe.log")
    const { mcp, scope } = await open({ probe: stdio(probeServer, [], { env: { MCP_PROBE_LOG: log } }) }, workspace)
    await Effect.runPromise(mcp.beforeTurn)
    outputOf(await call(toolNamed(mcp, "mcp__probe__spawn"), {}, await context(workspace)))
    const pids = (await fs.readFile(log, "utf8")).trim().split(" ").slice(1).map(Number)
    expect(pids).toHaveLength(2)
    expect(pids.every(alive)).toBe(true)
    await Effect.runPromise(Scope.close(scope, Exit.void))
    scopes.splice(scopes.indexOf(scope), 1)
    expect(pids.filter(alive)).toEqual([])
  })

  it("interrupting a call (Ctrl+C) sends notifications/cancelled to the server", async () => {
    const workspace = await tempDir()
    const log = path.join(workspace, "probe.log")
    const { mcp } = await open({ probe: stdio(probeServer, [], { env: { MCP_PROBE_LOG: log } }) }, workspace)
    await Effect.runPromise(mcp.beforeTurn)
    const hang = toolNamed(mcp, "mcp__probe__hang")
    const ctx = await context(workspace)
    await Effect.runPromise(
      Effect.gen(function* () {
        const fiber = yield* Effect.fork(hang.run({} as never, ctx))
        yield* Effect.sleep("300 millis")
        yield* Fiber.interrupt(fiber)
      })
    )
    await expect.poll(() => fs.readFile(log, "utf8").catch(() => ""), { timeout: 5000 }).toMatch(/^cancelled \d+ /)
  })

  it("a call stuck past toolTimeoutSeconds is cancelled alone (notifications/cancelled) while a call with progress goes on beside it", async () => {
    const workspace = await tempDir()
    const log = path.join(workspace, "probe.log")
    const { mcp } = await open({ probe: stdio(probeServer, [], { env: { MCP_PROBE_LOG: log }, toolTimeoutSeconds: 1 }) }, workspace)
    await Effect.runPromise(mcp.beforeTurn)
    const ctx = await context(workspace)
    // At the same time: a call that never answers, and 8 steps of 300 ms (2.4 s in all, past the
    // 1 s timeout, but never 1 s without progress).
    const [stuck, steps] = await Promise.all([
      call(toolNamed(mcp, "mcp__probe__hang"), {}, ctx),
      call(toolNamed(mcp, "mcp__probe__progress"), { steps: 8 }, ctx)
    ])
    expect(failureOf(stuck)).toContain("MCP server probe: hang sent no result or progress for 1 s (toolTimeoutSeconds) and was cancelled")
    expect(outputOf(steps).text).toBe("done after 8 steps")
    // The server heard why, for that call alone.
    expect((await fs.readFile(log, "utf8")).trim().split("\n")).toEqual([expect.stringMatching(/^cancelled \d+ no result or progress for 1 s \(toolTimeoutSeconds\)$/)])
    // The server is still there for the next call.
    expect(outputOf(await call(toolNamed(mcp, "mcp__probe__progress"), { steps: 1 }, ctx)).text).toBe("done after 1 steps")
  })

  it("list_changed refreshes the tools before the next turn, not during this one", async () => {
    const workspace = await tempDir()
    const { mcp } = await open({ probe: stdio(probeServer) }, workspace)
    await Effect.runPromise(mcp.beforeTurn)
    outputOf(await call(toolNamed(mcp, "mcp__probe__add_tool"), {}, await context(workspace)))
    expect(mcp.tools().some((tool) => tool.name === "mcp__probe__added")).toBe(false)
    await expect.poll(async () => {
      await Effect.runPromise(mcp.beforeTurn)
      return mcp.tools().some((tool) => tool.name === "mcp__probe__added")
    }, { timeout: 5000 }).toBe(true)
  })

  it("a caller that answers no sampling (as here: no sample given) tells a server with \"sampling\": true so, not how to turn it on", async () => {
    const workspace = await tempDir()
    const { mcp } = await open({ probe: stdio(probeServer, [], { sampling: true }) }, workspace)
    await Effect.runPromise(mcp.beforeTurn)
    const answer = outputOf(await call(toolNamed(mcp, "mcp__probe__sample"), { prompt: "hi" }, await context(workspace)))
    expect(answer.text).toBe("sampling failed: MCP error -32601: Crystal answers no sampling requests here (server probe).")
  })

  it("/mcp restart starts a server again", async () => {
    const workspace = await tempDir()
    const { mcp } = await open({ probe: stdio(probeServer) }, workspace)
    await Effect.runPromise(mcp.beforeTurn)
    expect(await Effect.runPromise(mcp.restart("probe"))).toMatch(/^MCP server probe restarted: 9 tools \(stdio\)\.$/)
    expect(await Effect.runPromise(mcp.restart("nope"))).toBe("/mcp restart: no MCP server is named nope (configured: probe)")
    expect(outputOf(await call(toolNamed(mcp, "mcp__probe__progress"), { steps: 1 }, await context(workspace))).text).toBe("done after 1 steps")
  })
})
