/**
 * `crystal agents list|show` and the trust note of `crystal run` for a workspace agent that names
 * its own model: the compiled binary, real files, a fake model server.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, runCrystal, writeLocalConfig } from "../support/crystal.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { writeTree } from "../support/temp.ts"

const fakeServer = useFakeServers()

const sandboxWithAgents = async () => {
  const sandbox = await makeSandbox()
  await writeTree(path.join(sandbox.home, "agents"), {
    "reviewer.md": "---\ndescription: Reviews diffs\ntools: read, grep\nmode: plan\nmaxSteps: 8\n---\nYou review diffs.\n",
    "broken.md": "---\ndescription: d\nmodel: sonnet\n---\nP\n"
  })
  await writeTree(path.join(sandbox.workspace, ".crystal", "agents"), {
    "explore.md": "---\ndescription: The team's explorer\ntools:\n  - read\n  - mcp__docs__*\nmodel: local/big\n---\nExplore the team's way.\n\nSecond paragraph.\n"
  })
  return sandbox
}

describe("crystal agents", () => {
  it("list: built-ins, the user's and the workspace's agents; a skipped file is one line on stderr", async () => {
    const sandbox = await sandboxWithAgents()
    const result = await runCrystal(sandbox, ["agents", "list", "--format", "text"])
    expect(result.code).toBe(0)
    expect(result.stdout.split("\n").filter((line) => line !== "")).toEqual([
      "explore\tworkspace\tlocal/big (not trusted: runs on the session's model)\tthe parent's\tread, mcp__docs__*\tThe team's explorer",
      "general\tbuilt-in\tthe parent's\tthe parent's\tall of the parent's\tA general-purpose agent with the same tools as you: hand it a self-contained task (research, a multi-step change) and get its result back.",
      "reviewer\tuser\tthe parent's\tplan\tread, grep\tReviews diffs"
    ])
    const workspace = await fs.realpath(sandbox.workspace)
    expect(result.stderr.split("\n").filter((line) => line !== "")).toEqual([
      `crystal: ${path.join(sandbox.home, "agents", "broken.md")}: "model" must be inherit or provider/model (got "sonnet"); agent skipped.`,
      // No config.json: "local" is no provider here.
      `crystal: ${path.join(workspace, ".crystal", "agents", "explore.md")}: unknown provider 'local' in 'local/big' (known: anthropic, openai, gemini, deepseek, ollama)`
    ])
  })

  it("list --format json: one document with every field and the notes", async () => {
    const sandbox = await sandboxWithAgents()
    const result = await runCrystal(sandbox, ["agents", "list", "--format", "json"])
    expect(result.code).toBe(0)
    const parsed = JSON.parse(result.stdout) as { agents: Array<Record<string, unknown>>; notes: Array<string> }
    expect(parsed.agents.map((agent) => [agent["name"], agent["source"], agent["tools"], agent["model"], agent["modelTrusted"], agent["mode"], agent["maxSteps"]])).toEqual([
      ["explore", "workspace", ["read", "mcp__docs__*"], "local/big", false, null, null],
      ["general", "builtin", null, "inherit", null, null, null],
      ["reviewer", "user", ["read", "grep"], "inherit", null, "plan", 8]
    ])
    expect(parsed.agents[0]?.["file"]).toBe(path.join(await fs.realpath(sandbox.workspace), ".crystal", "agents", "explore.md"))
    expect(parsed.notes).toHaveLength(2)
  })

  it("show NAME: source file, what it replaces, tools, model, mode, steps, then the prompt", async () => {
    const sandbox = await sandboxWithAgents()
    const result = await runCrystal(sandbox, ["agents", "show", "explore", "--format", "text"])
    expect(result.code).toBe(0)
    const workspace = await fs.realpath(sandbox.workspace)
    expect(result.stdout).toBe(
      [
        "name\texplore",
        "source\tworkspace",
        `file\t${path.join(workspace, ".crystal", "agents", "explore.md")}`,
        "replaces\tthe built-in agent",
        "description\tThe team's explorer",
        "tools\tread, mcp__docs__*",
        "model\tlocal/big (not trusted: runs on the session's model)",
        "mode\tthe parent's",
        "max-steps\tthe parent's",
        "",
        "Explore the team's way.",
        "",
        "Second paragraph.",
        ""
      ].join("\n")
    )
    const builtin = await runCrystal(sandbox, ["agents", "show", "general", "--format", "json"])
    const general = JSON.parse(builtin.stdout) as Record<string, unknown>
    expect(general).toMatchObject({ name: "general", source: "builtin", file: null, tools: null, model: "inherit", replaces: [] })
    expect(String(general["prompt"])).toMatch(/^You are a subagent/)
  })

  it("show with an unknown name: one line naming the agents there are, exit code 1", async () => {
    const sandbox = await sandboxWithAgents()
    const result = await runCrystal(sandbox, ["agents", "show", "nobody"])
    expect(result.code).toBe(1)
    expect(result.stdout).toBe("")
    expect(result.stderr.split("\n").filter((line) => line !== "").at(-1)).toBe("crystal: no agent 'nobody' (found: explore, general, reviewer)")
  })

  it("crystal run: an untrusted workspace agent's model is a note (no one to ask); --trust-project-tools trusts it", async () => {
    const sandbox = await sandboxWithAgents()
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ text: "ok" }])
    // Headless there is no one to ask: the note says the agent runs on the session's model.
    const run = await runCrystal(sandbox, ["run", "--format", "json", "hi"], { timeoutMs: 45_000 })
    expect(run.code).toBe(0)
    const workspace = await fs.realpath(sandbox.workspace)
    const note = jsonLines(run.stdout).find((event) => event["type"] === "note" && String(event["text"]).includes("explore"))
    expect(String(note?.["text"]).split("\n")).toEqual([
      `agents run on the session's model until you trust them: explore (from ${workspace}; answer yes when asked, or pass --trust-project-tools)`,
      "  agent explore: runs on local/big instead of the session's model",
      `      ${path.join(workspace, ".crystal", "agents", "explore.md")}`
    ])
    // --trust-project-tools: no note (and nothing stored).
    fake.script([{ text: "ok" }])
    const trusted = await runCrystal(sandbox, ["run", "--format", "json", "--trust-project-tools", "hi"], { timeoutMs: 45_000 })
    expect(trusted.code).toBe(0)
    expect(jsonLines(trusted.stdout).some((event) => event["type"] === "note" && String(event["text"]).includes("explore"))).toBe(false)
  })
})
