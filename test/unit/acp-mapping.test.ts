/** The pure parts of `crystal acp`: tool calls as ACP shows them, permission requests, modes, client MCP servers. */
import { describe, expect, it } from "vitest"
import { permissionRequest, answerOf } from "../../src/acp/operator.ts"
import { viewToolCall } from "../../src/acp/tool-calls.ts"
import { currentModeId, modeSettings } from "../../src/acp/modes.ts"
import { serverName, withClientServers } from "../../src/acp/mcp-servers.ts"
import { configDefaults, type Config } from "../../src/config/schema.ts"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"

const workspace = "/work/space"

describe("tool calls as ACP shows them", () => {
  it.each([
    ["read", { path: "src/a.ts", offset: 3 }, "read", "Read src/a.ts", [{ path: "/work/space/src/a.ts", line: 3 }]],
    ["edit", { path: "/work/space/b.ts", old_string: "a", new_string: "b" }, "edit", "Edit b.ts", [{ path: "/work/space/b.ts" }]],
    ["write", { path: "../outside.txt", content: "" }, "edit", "Write /work/outside.txt", [{ path: "/work/outside.txt" }]],
    ["grep", { pattern: "TODO" }, "search", "Search /TODO/", [{ path: "/work/space" }]],
    ["bash", { command: "npm   test\n--watch" }, "execute", "Run `npm test --watch`", []],
    ["web_fetch", { url: "https://example.com" }, "fetch", "Fetch https://example.com", []],
    ["todowrite", { todos: [] }, "think", "Update the todo list", []],
    ["mcp__files__read_file", { path: "x" }, "other", "files: read_file", []],
    ["unknown_tool", "not an object", "other", "unknown_tool", []]
  ])("%s", (name, args, kind, title, locations) => {
    expect(viewToolCall(name, args, workspace)).toEqual({ kind, title, locations })
  })
})

describe("permission requests", () => {
  const classification = { risk: "medium", authority: "execute", scope: "workspace", summary: "run touch x", paths: [] } as const
  it("name the call being run, and a subagent's path in the title", () => {
    const agent = [{ callId: "task-call", index: 2, name: "explore" }]
    const request = permissionRequest({ sessionId: "s1", workspace }, { toolName: "bash", arguments: { command: "touch x" }, classification, mode: "default", agent, callId: "child-call" })
    expect(request.toolCall).toMatchObject({ toolCallId: "task-call/child-call", title: "task 2 › explore: Run `touch x`", kind: "execute" })
    expect(request.options.map((option) => option.kind)).toEqual(["allow_once", "allow_always", "reject_once"])
  })

  it("allow only on a selected allow option", () => {
    expect(answerOf({ outcome: { outcome: "selected", optionId: "allow-once" } })).toEqual({ _tag: "AllowOnce" })
    expect(answerOf({ outcome: { outcome: "selected", optionId: "allow-always" } })).toEqual({ _tag: "AllowSession" })
    expect(answerOf({ outcome: { outcome: "selected", optionId: "reject" } })._tag).toBe("Deny")
    expect(answerOf({ outcome: { outcome: "selected", optionId: "ALLOW-ONCE" } })._tag).toBe("Deny")
    expect(answerOf({ outcome: { outcome: "cancelled" } })._tag).toBe("Deny")
  })
})

describe("modes", () => {
  it("plan, and work under each approval mode", () => {
    expect(currentModeId({ mode: "plan", approval: "full" })).toBe("plan")
    expect(currentModeId({ mode: "work", approval: "edit" })).toBe("edit")
    expect(modeSettings("plan")).toEqual({ mode: "plan" })
    expect(modeSettings("audit")).toEqual({ mode: "work", approval: "audit" })
    expect(modeSettings("yolo")).toBeUndefined()
  })
})

describe("the client's MCP servers", () => {
  const merge = (config: Config, servers: Parameters<typeof withClientServers>[1]) => Effect.runSync(Effect.either(withClientServers(config, servers)))

  it("join config.json's with names made to fit; a shared name takes the client's transport and keeps the operator's restrictions", () => {
    const config: Config = {
      ...configDefaults,
      mcpServers: {
        everything: { command: "old", cwd: "/old", env: { SECRET: "s" }, enabled: false, tools: { deny: ["echo"] }, sampling: false, toolTimeoutSeconds: 5 },
        kept: { url: "http://127.0.0.1:1/mcp" }
      }
    }
    const merged = merge(config, [
      { name: "everything", command: "node", args: ["server.js"], env: [{ name: "TOKEN", value: "t" }] },
      { type: "http", name: "my server.v2", url: "http://127.0.0.1:2/mcp", headers: [{ name: "Authorization", value: "Bearer x" }] }
    ])
    expect(Either.getOrThrow(merged).mcpServers).toEqual({
      everything: { command: "node", args: ["server.js"], env: { TOKEN: "t" }, enabled: false, tools: { deny: ["echo"] }, sampling: false, toolTimeoutSeconds: 5 },
      kept: { url: "http://127.0.0.1:1/mcp" },
      my_server_v2: { url: "http://127.0.0.1:2/mcp", headers: { Authorization: "Bearer x" } }
    })
    expect(serverName("")).toBe("editor")
  })

  it("refuse two client names that fit to one server name, and an entry config.json would refuse, in one line", () => {
    const twice = merge(configDefaults, [
      { name: "my server", command: "a", args: [], env: [] },
      { name: "my.server", command: "b", args: [], env: [] }
    ])
    expect(Either.isLeft(twice) && twice.left.message).toBe('mcpServers: "my server" and "my.server" both become the server name "my_server"; rename one')
    const empty = merge(configDefaults, [{ name: "bad", command: "", args: [], env: [] }])
    expect(Either.isLeft(empty) && empty.left.message).toMatch(/^mcpServers: "bad": .*program to run/)
    const notUrl = merge(configDefaults, [{ type: "http", name: "web", url: "file:///etc/passwd", headers: [] }])
    expect(Either.isLeft(notUrl) && notUrl.left.message).toMatch(/^mcpServers: "web": .*not an http/)
    for (const result of [twice, empty, notUrl]) expect(Either.isLeft(result) && result.left.message.includes("\n")).toBe(false)
  })
})

describe("the early initialize answer", () => {
  it("speaks the SDK's protocol version", async () => {
    const acp = await import("@agentclientprotocol/sdk")
    const { protocolVersion } = await import("../../src/acp/initialize.ts")
    expect(protocolVersion).toBe(acp.PROTOCOL_VERSION)
  })
})
