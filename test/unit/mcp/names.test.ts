import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { clientInfo } from "../../../src/mcp/connect.ts"
import { clipDescription, distinctToolName, MAX_TOOL_NAME, MCP_DESCRIPTION_BUDGET, mcpToolName } from "../../../src/mcp/names.ts"
import { planServer } from "../../../src/mcp/server-config.ts"

describe("MCP tool names", () => {
  it("keeps names every protocol accepts as mcp__SERVER__TOOL", () => {
    expect(mcpToolName("everything", "get-sum")).toBe("mcp__everything__get-sum")
    expect(mcpToolName("files", "read_text_file")).toBe("mcp__files__read_text_file")
  })

  it("replaces other characters and keeps sanitised names apart with a hash", () => {
    const dotted = mcpToolName("srv", "a.b")
    const underscored = mcpToolName("srv", "a_b")
    expect(dotted).toMatch(/^mcp__srv__a_b_[0-9a-f]{6}$/)
    expect(underscored).toBe("mcp__srv__a_b")
    expect(dotted).not.toBe(underscored)
    expect(mcpToolName("srv", "ünïcode tool/x")).toMatch(/^[A-Za-z0-9_-]+$/)
  })

  it("clips long names to 64 characters, distinct by their hash", () => {
    const a = mcpToolName("server", `${"x".repeat(80)}a`)
    const b = mcpToolName("server", `${"x".repeat(80)}b`)
    expect(a).toHaveLength(MAX_TOOL_NAME)
    expect(b).toHaveLength(MAX_TOOL_NAME)
    expect(a).not.toBe(b)
  })

  it("a name another tool has already is made distinct with a hash, within 64 characters", () => {
    expect(distinctToolName("a", "b__c", new Set())).toBe("mcp__a__b__c")
    const taken = new Set([mcpToolName("a", "b__c")])
    const second = distinctToolName("a__b", "c", taken)
    expect(second).toMatch(/^mcp__a__b__c_[0-9a-f]{6}$/)
    // Clipped names: the same first 57 characters and the same hash would meet; the counter parts them.
    const long = `${"y".repeat(70)}`
    const clipped = mcpToolName("s", long)
    expect(clipped).toHaveLength(MAX_TOOL_NAME)
    const again = distinctToolName("s", long, new Set([clipped]))
    expect(again).toHaveLength(MAX_TOOL_NAME)
    expect(again).not.toBe(clipped)
    const third = distinctToolName("s", long, new Set([clipped, again]))
    expect(new Set([clipped, again, third]).size).toBe(3)
    expect(third).toMatch(/^[A-Za-z0-9_-]{64}$/)
  })

  it("clips descriptions to the budget and fills an empty one", () => {
    expect(clipDescription("x".repeat(5000), "f")).toHaveLength(MCP_DESCRIPTION_BUDGET)
    expect(clipDescription("  ", "fallback")).toBe("fallback")
  })

  it("introduces Crystal with package.json's version", () => {
    const pkg = JSON.parse(fs.readFileSync(path.resolve(import.meta.dirname, "..", "..", "..", "package.json"), "utf8")) as { version: string }
    expect(clientInfo.version).toBe(pkg.version)
  })
})

describe("planServer", () => {
  const options = { workspace: "/work/space", env: { TOKEN: "s3cret", HOME: "/home/me" }, baseEnv: { PATH: "/bin" } }

  it("expands ${env:VAR} in env, args and headers, fills defaults, and shows the entry unexpanded", () => {
    const stdio = planServer("a", { command: "npx", args: ["-y", "srv", "--token=${env:TOKEN}"], env: { KEY: "${env:TOKEN}" }, cwd: "sub" }, options)
    expect(stdio.endpoint).toEqual({ kind: "stdio", command: "npx", args: ["-y", "srv", "--token=s3cret"], env: { PATH: "/bin", KEY: "s3cret" }, cwd: "/work/space/sub" })
    expect(stdio.shown).toBe(`npx -y srv "--token=\${env:TOKEN}"`)
    expect(stdio).toMatchObject({ enabled: true, startupTimeoutMs: 10_000, toolTimeoutMs: 120_000, trustAnnotations: false, deny: [] })
    const http = planServer("b", { url: "https://example.com/mcp", headers: { Authorization: "Bearer ${env:TOKEN}" }, toolTimeoutSeconds: 5 }, options)
    expect(http.endpoint).toEqual({ kind: "http", url: "https://example.com/mcp", headers: { Authorization: "Bearer s3cret" } })
    expect(http.toolTimeoutMs).toBe(5000)
  })

  it("the values ${env:…} puts into headers, or into env under a credential's name, are the plan's secrets (not args, cwd or url, nor short values)", () => {
    const env = { TOKEN: "s3cret-token", OTHER: "other-secret-value", SHORT: "abc", DIR: "/some/long/directory", HOME: "/home/someone", GH: "ghp_from_a_plain_name" }
    const stdio = planServer(
      "a",
      { command: "npx", args: ["--dir=${env:DIR}"], env: { KEY: "${env:TOKEN}", FLAG: "${env:SHORT}", HOME: "${env:HOME}", WORK_DIR: "${env:DIR}", GITHUB_PERSONAL_ACCESS_TOKEN: "${env:GH}" }, cwd: "${env:DIR}" },
      { ...options, env }
    )
    // A copied "HOME": "${env:HOME}" must not redact every path under the home.
    expect(stdio.secrets).toEqual(["s3cret-token", "ghp_from_a_plain_name"])
    const http = planServer("b", { url: "https://example.com/${env:DIR}", headers: { Authorization: "Bearer ${env:OTHER}", "X-Key": "${env:TOKEN}" } }, { ...options, env })
    expect(http.secrets).toEqual(["other-secret-value", "s3cret-token"])
    expect(planServer("c", { url: "https://x/mcp", headers: { A: "${env:NOPE}" } }, options).secrets).toEqual([])
  })

  it("a variable that is not set is the reason the server cannot start", () => {
    expect(planServer("c", { url: "https://x/mcp", headers: { A: "${env:NOPE}" } }, options).endpoint).toBe("headers.A names ${env:NOPE}, which is not set")
  })
})
