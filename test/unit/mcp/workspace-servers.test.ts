/**
 * A workspace's `.crystal/mcp.json` (issue 15): its servers are trust entries keyed by their
 * content, join the session's one trust question, and are never spawned untrusted: the server's
 * command writes a marker file before it starts server-everything, so a marker proves a spawn.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { headlessOperator } from "../../../layers/headless.ts"
import { prepareSession } from "../../../layers/prepare.ts"
import { openSessionHost } from "../../../layers/session-host.ts"
import { defaultSessionFlags } from "../../../src/cli/flags.ts"
import { jsonRenderer } from "../../../src/cli/render/json.ts"
import type { OperatorShape } from "../../../src/engine/operator.ts"
import { readWorkspaceServers } from "../../../src/mcp/workspace-servers.ts"
import { everythingServer } from "../../support/mcp/servers.ts"
import { tempDir, writeTree } from "../../support/temp.ts"

const serverEntry = (marker: string, extra: Record<string, unknown> = {}) => ({
  command: "sh",
  args: ["-c", `echo started >> ${JSON.stringify(marker)} && exec ${JSON.stringify(process.execPath)} ${JSON.stringify(everythingServer)} stdio`],
  ...extra
})

const exists = (file: string) => fs.access(file).then(() => true, () => false)

describe("reading .crystal/mcp.json", () => {
  it("hashes an entry by its content: formatting and key order do not count, any change does", async () => {
    const ws = await tempDir()
    const write = (text: string) => writeTree(ws, { ".crystal/mcp.json": text })
    await write(JSON.stringify({ mcpServers: { files: { command: "npx", args: ["-y", "srv"], env: { A: "${env:A}" } } } }))
    const first = readWorkspaceServers(ws, new Set())
    await write(`{"mcpServers":{"files":{"env":{"A":"\${env:A}"},\n  "args":["-y","srv"],"command":"npx"}}}`)
    const reordered = readWorkspaceServers(ws, new Set())
    await write(JSON.stringify({ mcpServers: { files: { command: "npx", args: ["-y", "srv2"], env: { A: "${env:A}" } } } }))
    const changed = readWorkspaceServers(ws, new Set())
    expect(first.servers.map((server) => server.trust.kind)).toEqual(["mcp"])
    expect(first.servers[0]?.trust.describe).toBe("npx -y srv")
    expect(reordered.servers[0]?.trust.hash).toBe(first.servers[0]?.trust.hash)
    expect(changed.servers[0]?.trust.hash).not.toBe(first.servers[0]?.trust.hash)
    await write(JSON.stringify({ mcpServers: { files: { command: "npx", args: ["-y", "srv"], env: { A: "${env:A}" }, sampling: true } } }))
    const sampling = readWorkspaceServers(ws, new Set())
    expect(sampling.servers[0]?.trust.describe).toBe("npx -y srv (sampling on: may ask your model)")
    expect(sampling.servers[0]?.trust.hash).not.toBe(first.servers[0]?.trust.hash)
  })

  it("leaves a name config.json uses to the operator's server, with a note", async () => {
    const ws = await tempDir()
    await writeTree(ws, { ".crystal/mcp.json": JSON.stringify({ mcpServers: { files: { command: "a" }, extra: { url: "http://127.0.0.1:1/mcp" } } }) })
    const read = readWorkspaceServers(ws, new Set(["files"]))
    expect(read.servers.map((server) => server.name)).toEqual(["extra"])
    expect(read.notes).toEqual([`MCP server files in ${read.file} is ignored: config.json names a server files too, and the operator's own wins`])
  })

  it("turns a broken file into one note naming it and the field", async () => {
    const ws = await tempDir()
    await writeTree(ws, { ".crystal/mcp.json": JSON.stringify({ mcpServers: { bad: { args: ["x"] } } }) })
    const read = readWorkspaceServers(ws, new Set())
    expect(read.servers).toEqual([])
    expect(read.notes).toHaveLength(1)
    expect(read.notes[0]).toContain(`${read.file}: mcpServers.bad: needs "command"`)
    await writeTree(ws, { ".crystal/mcp.json": JSON.stringify({ mcpServers: { sampler: { command: "x", sampling: 1 } } }) })
    expect(readWorkspaceServers(ws, new Set()).notes).toEqual([`${read.file}: mcpServers.sampler.sampling: expected boolean, got 1 (expected {"mcpServers": {"NAME": {"command": ...}}}); its MCP servers are not started`])
    await writeTree(ws, { ".crystal/mcp.json": "{ nope" })
    expect(readWorkspaceServers(ws, new Set()).notes[0]).toMatch(/mcp\.json: not valid JSON .*its MCP servers are not started$/)
  })
})

describe("a session in a workspace with .crystal/mcp.json", () => {
  const setup = async () => {
    const root = await fs.realpath(await tempDir())
    const home = path.join(root, "home")
    const ws = path.join(root, "ws")
    const marker = path.join(root, "started.log")
    await writeTree(home, { "config.json": JSON.stringify({ model: "local/m", providers: { local: { protocol: "openai-chat", baseURL: "http://127.0.0.1:9/v1", models: { m: {} } } } }) })
    await writeTree(ws, { ".crystal/mcp.json": JSON.stringify({ mcpServers: { wsev: serverEntry(marker) } }) })
    return { root, home, ws, marker }
  }

  const quiet = { ...jsonRenderer, note: () => Effect.void, sessionStarted: () => Effect.void }

  /** Opens a session with an operator answering `answer` and returns what it saw. */
  const openWith = (home: string, ws: string, answer: boolean, flags = defaultSessionFlags) => {
    const questions: Array<string> = []
    const operator: OperatorShape = { ...headlessOperator, confirm: (question) => Effect.sync(() => (questions.push(question), answer)) }
    const env = { ...process.env, CRYSTAL_HOME: home }
    return Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const prepared = yield* prepareSession(flags, ws, env)
          const host = yield* openSessionHost(prepared, { flags, env, renderer: quiet, operator })
          const session = host.current().session
          const notes = yield* session.mcp?.beforeTurn ?? Effect.succeed([])
          return { questions, notes: [...session.notes, ...notes], tools: session.mcp?.tools().map((tool) => tool.name) ?? [] }
        })
      )
    )
  }

  it("never spawns an untrusted server: one note, no tools, no marker", async () => {
    const { home, ws, marker } = await setup()
    const seen = await openWith(home, ws, false)
    expect(seen.questions).toHaveLength(1)
    expect(seen.questions[0]).toContain(`MCP server wsev: sh -c`)
    expect(seen.tools).toEqual([])
    const refusal = seen.notes.filter((note) => note.includes("wsev"))
    expect(refusal).toHaveLength(1)
    // The note repeats what the question showed: `crystal run` has no question to show.
    expect(refusal[0]?.split("\n")).toEqual([
      `not offered until you trust them: wsev (from ${ws}; answer yes when asked, or pass --trust-project-tools)`,
      `  MCP server wsev: sh -c ${JSON.stringify(serverEntry(marker).args[1])}`,
      "      runs inline code: trusting covers the workspace files it names, not files it reaches otherwise (a glob, a computed path, an import)",
      `      cwd ${ws}`
    ])
    expect(await exists(marker)).toBe(false)
    expect(await exists(path.join(home, "trust.json"))).toBe(false)
  })

  it("starts a trusted server, remembers the trust, and asks again when its entry changes", async () => {
    const { home, ws, marker } = await setup()
    const first = await openWith(home, ws, true)
    expect(first.questions).toHaveLength(1)
    expect(first.tools).toContain("mcp__wsev__echo")
    expect(await exists(marker)).toBe(true)
    // Trusted now: the next session starts it without asking (an operator that would say no is not asked).
    const second = await openWith(home, ws, false)
    expect(second.questions).toEqual([])
    expect(second.tools).toContain("mcp__wsev__echo")
    // One more argument is another program: asked again, and refused, it does not start.
    await fs.rm(marker)
    await writeTree(ws, { ".crystal/mcp.json": JSON.stringify({ mcpServers: { wsev: serverEntry(marker, { cwd: "." }) } }) })
    const third = await openWith(home, ws, false)
    expect(third.questions).toHaveLength(1)
    expect(third.tools).toEqual([])
    expect(await exists(marker)).toBe(false)
  })

  it("--trust-project-tools starts it without asking and stores nothing", async () => {
    const { home, ws, marker } = await setup()
    const seen = await openWith(home, ws, false, { ...defaultSessionFlags, trustProjectTools: true })
    expect(seen.questions).toEqual([])
    expect(seen.tools).toContain("mcp__wsev__echo")
    expect(await exists(marker)).toBe(true)
    expect(await exists(path.join(home, "trust.json"))).toBe(false)
  })
})
