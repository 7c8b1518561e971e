/**
 * SPEC H1: the same hook pipeline wraps every tool the session's catalog can hold, built-in or
 * external. A real session (prepareSession + startSession) with skills, an image model, an exec
 * tool set and a module tool set in the home, and an MCP server; a plugin that records onToolCall, onApproval and
 * onToolResult; every tool of both catalogs called once under the audit approval mode, where the
 * operator denies everything (so nothing runs, and every call reaches the approval step).
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { prepareSession } from "../../../layers/prepare.ts"
import { startSession } from "../../../layers/session.ts"
import { defaultSessionFlags } from "../../../src/cli/flags.ts"
import { jsonRenderer } from "../../../src/cli/render/json.ts"
import { executeToolCall } from "../../../src/engine/executor.ts"
import { Toolbox } from "../../../src/engine/toolbox.ts"
import { tempDir, writeTree } from "../../support/temp.ts"
import { withHooks } from "../../support/plugins.ts"

const probeServer = path.resolve(import.meta.dirname, "..", "..", "support", "mcp", "probe-server.mjs")

/** Valid arguments for each tool the catalog can hold; a tool missing here fails the test. */
const sampleArguments: Readonly<Record<string, unknown>> = {
  read: { path: "a.txt" },
  list: {},
  tree: {},
  glob: { pattern: "*" },
  grep: { pattern: "alpha" },
  search: { query: "alpha" },
  todowrite: { todos: [] },
  todoread: {},
  plan: { text: "# Plan\n- [ ] one\n" },
  propose_plan: {},
  task: { description: "look around", prompt: "list the files" },
  question: { questions: [{ header: "Pick", question: "Which?", options: [{ label: "a", description: "A" }, { label: "b", description: "B" }] }] },
  skill: { name: "deploy" },
  edit: { path: "a.txt", old_string: "alpha", new_string: "beta" },
  write: { path: "b.txt", content: "x" },
  bash: { command: "echo hi" },
  bash_start: { command: "sleep 1" },
  bash_status: {},
  bash_logs: { id: "bg1" },
  bash_stop: { id: "bg1" },
  view_image: { path: "pic.png" },
  describe_image: { path: "pic.png" },
  web_fetch: { url: "http://127.0.0.1:9/" },
  shout: { text: "hi" },
  add_note: { text: "hi" },
  mcp__probe__hang: {},
  mcp__probe__die: {},
  mcp__probe__spawn: {},
  mcp__probe__progress: { steps: 1 },
  mcp__probe__flood: { count: 1, linger: 0 },
  mcp__probe__contain: {},
  mcp__probe__add_tool: {},
  mcp__probe__sample: { prompt: "hi" },
  mcp__probe__elicit: { message: "hi" }
}

describe("every tool the catalog can hold", () => {
  it("passes through onToolCall, onApproval and onToolResult", async () => {
    const root = await fs.realpath(await tempDir())
    const home = path.join(root, "home")
    const workspace = path.join(root, "ws")
    await writeTree(workspace, { "a.txt": "alpha\n" })
    await writeTree(home, {
      "config.json": JSON.stringify({
        model: "local/m",
        imageModel: "local/m",
        providers: { local: { protocol: "openai-chat", baseURL: "http://127.0.0.1:1/v1", models: { m: { imageInput: true } } } },
        mcpServers: { probe: { command: process.execPath, args: [probeServer] } }
      }),
      "skills/deploy/SKILL.md": "---\nname: deploy\ndescription: How to deploy.\n---\nRun the deploy script.\n",
      "tools/loud/tools.json": JSON.stringify({
        runner: "exec",
        tools: [{ name: "shout", description: "Shouts.", parameters: { type: "object", properties: { text: { type: "string" } }, required: ["text"] }, command: ["echo", "HI"] }]
      }),
      "tools/notes/tools.json": JSON.stringify({ runner: "module", entry: "tools.mjs" }),
      "tools/notes/tools.mjs":
        'export const tools = [{ definition: { name: "add_note", description: "Adds a note.", parameters: { type: "object", properties: { text: { type: "string" } } } }, run: async () => ({ text: "ok" }) }]\n'
    })
    const seen: Record<"onToolCall" | "onApproval" | "onToolResult", Array<string>> = { onToolCall: [], onApproval: [], onToolResult: [] }
    const recorder = withHooks("recorder", {
      onToolCall: (c) => void seen.onToolCall.push(c.name),
      onApproval: (a) => void seen.onApproval.push(a.tool),
      onToolResult: (r) => void seen.onToolResult.push(r.name)
    })
    const env = { CRYSTAL_HOME: home, PATH: process.env["PATH"] ?? "/usr/bin:/bin" }
    const names = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const prepared = yield* prepareSession(defaultSessionFlags, workspace, env)
          const session = yield* startSession(
            { ...prepared, plugins: { plugins: [recorder], notes: [] } },
            { env, renderer: { ...jsonRenderer, note: () => Effect.void }, operator: { confirm: () => Effect.succeed(false), askQuestions: () => Effect.succeed({ _tag: "NoOperator" }), approve: () => Effect.succeed({ _tag: "Deny" }) } }
          )
          const toolbox = Context.get(session.services, Toolbox)
          // What a turn does first: the MCP servers join the catalog.
          if (toolbox.beforeTurn !== undefined) yield* toolbox.beforeTurn
          const work = toolbox.catalog("work").map((tool) => tool.name)
          const plan = toolbox.catalog("plan").map((tool) => tool.name)
          const all = [...new Set([...work, ...plan])]
          for (const name of all) {
            const mode = work.includes(name) ? "work" : "plan"
            const output = yield* executeToolCall({ id: `call_${name}`, name, arguments: sampleArguments[name] }, { mode, approval: "audit" }).pipe(Effect.provide(session.services))
            expect(output.text, name).toMatch(/^Denied by the operator/)
          }
          return all
        })
      )
    )
    expect(names.filter((name) => !(name in sampleArguments))).toEqual([])
    expect(names).toEqual(expect.arrayContaining(["read", "bash", "question", "skill", "view_image", "describe_image", "shout", "add_note", "mcp__probe__hang"]))
    expect(seen.onToolCall).toEqual(names)
    expect(seen.onApproval).toEqual(names)
    expect(seen.onToolResult).toEqual(names)
  })
})
