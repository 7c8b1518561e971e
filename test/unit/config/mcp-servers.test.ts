import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import { mergeForSave, parseConfigText } from "../../../src/config/load.ts"

const parse = (json: unknown) => parseConfigText("/h/config.json", JSON.stringify(json))
const problem = (json: unknown): string => {
  const result = parse(json)
  if (Either.isRight(result)) throw new Error("parsed")
  return result.left.message
}

describe("mcpServers in config.json", () => {
  it("takes stdio and HTTP entries in the shape other clients use, unknown keys kept for the save", () => {
    const result = parse({
      mcpServers: {
        files: { command: "npx", args: ["-y", "@modelcontextprotocol/server-filesystem", "."], env: { A: "${env:A}" }, cwd: ".", someOtherClientsKey: 1 },
        web: { url: "https://example.com/mcp", headers: { Authorization: "Bearer ${env:TOKEN}" }, enabled: false, startupTimeoutSeconds: 30, toolTimeoutSeconds: 600, tools: { allow: ["a"], deny: ["b"] }, trustAnnotations: true, sampling: true }
      }
    })
    if (Either.isLeft(result)) throw new Error(result.left.message)
    expect(Object.keys(result.right.config.mcpServers ?? {})).toEqual(["files", "web"])
    expect(mergeForSave(result.right.raw, { model: "x/y" })["mcpServers"]).toEqual((result.right.raw as { mcpServers: unknown }).mcpServers)
  })

  it.each([
    [{ mcpServers: { a: {} } }, 'mcpServers.a: needs "command" (a stdio server) or "url" (an HTTP server)'],
    [{ mcpServers: { a: { command: "x", url: "http://x/mcp" } } }, 'mcpServers.a: has both "command" and "url": a server is either stdio or HTTP'],
    [{ mcpServers: { a: { url: "http://x/mcp", env: {} } } }, 'mcpServers.a: "env" belongs to a stdio server ("command")'],
    [{ mcpServers: { a: { url: "ftp://x" } } }, 'mcpServers.a.url: "ftp://x" is not an http:// or https:// URL (e.g. "http://127.0.0.1:3001/mcp")'],
    [{ mcpServers: { a: { command: 3 } } }, "mcpServers.a.command: expected string, got 3"],
    [{ mcpServers: { a: { command: "x", startupTimeoutSeconds: 0 } } }, "mcpServers.a.startupTimeoutSeconds: a number of seconds above 0 and at most 86400 (e.g. 30)"],
    [{ mcpServers: { "a b": { command: "x" } } }, 'mcpServers: "a b" is not a server name: 1-32 letters, digits, _ or - (it becomes part of the tool names)'],
    [{ mcpServers: { a: { command: "x", sampling: "yes" } } }, 'mcpServers.a.sampling: expected boolean, got "yes"'],
    [{ mcpServers: { a: { command: "x", tools: { allow: "echo" } } } }, 'mcpServers.a.tools.allow: expected a list of the server\'s tool names (e.g. ["echo", "get-sum"]), got "echo"']
  ])("a bad entry is one error naming the field: %j", (json, message) => {
    expect(problem(json)).toBe(`/h/config.json: ${message}`)
  })
})
