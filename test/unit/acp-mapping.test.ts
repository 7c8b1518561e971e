/** The pure parts of `crystal acp`: tool calls as ACP shows them, permission requests, modes, client MCP servers. */
import { describe, expect, it } from "vitest"
import { permissionRequest, answerOf } from "../../src/acp/operator.ts"
import { viewToolCall } from "../../src/acp/tool-calls.ts"
import { currentModeId, modeSettings } from "../../src/acp/modes.ts"
import { serverName, withClientServers } from "../../src/acp/mcp-servers.ts"
import { configDefaults } from "../../src/config/schema.ts"

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
  it("join config.json's, theirs winning a shared name, with names made to fit", () => {
    const config = { ...configDefaults, mcpServers: { everything: { command: "old" }, kept: { url: "http://127.0.0.1:1/mcp" } } }
    const merged = withClientServers(config, [
      { name: "everything", command: "node", args: ["server.js"], env: [{ name: "TOKEN", value: "t" }] },
      { type: "http", name: "my server.v2", url: "http://127.0.0.1:2/mcp", headers: [{ name: "Authorization", value: "Bearer x" }] }
    ])
    expect(merged.mcpServers).toEqual({
      everything: { command: "node", args: ["server.js"], env: { TOKEN: "t" } },
      kept: { url: "http://127.0.0.1:1/mcp" },
      my_server_v2: { url: "http://127.0.0.1:2/mcp", headers: { Authorization: "Bearer x" } }
    })
    expect(serverName("")).toBe("editor")
  })
})

describe("the early initialize answer", () => {
  it("speaks the SDK's protocol version", async () => {
    const acp = await import("@agentclientprotocol/sdk")
    const { protocolVersion } = await import("../../src/acp/initialize.ts")
    expect(protocolVersion).toBe(acp.PROTOCOL_VERSION)
  })
})
