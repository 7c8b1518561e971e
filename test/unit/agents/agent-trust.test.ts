/**
 * A workspace agent that names its own model joins the session's one trust question; untrusted,
 * it runs on the session's model. decideWorkspaceTrust (layers/session-tools.ts) is the session's
 * real trust step, driven here with a scripted answer.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { decideWorkspaceTrust } from "../../../layers/session-tools.ts"
import { agentTrustEntries, applyAgentTrust } from "../../../src/agents/agent-trust.ts"
import { findAgent, loadAgents } from "../../../src/agents/load.ts"
import { decideTrust } from "../../../src/trust/trust-question.ts"
import { preparedSession } from "../../support/prepared.ts"
import { tempDir, writeTree } from "../../support/temp.ts"

const asker = (answer: boolean, asked: Array<string>) => ({
  confirm: (question: string) =>
    Effect.sync(() => {
      asked.push(question)
      return answer
    })
})

const reviewer = (model: string) => `---\ndescription: Reviews\nmodel: ${model}\n---\nReview.\n`

const setup = async (workspaceAgents: Record<string, string>, userAgents: Record<string, string> = {}) => {
  const root = await tempDir()
  const home = path.join(root, "home")
  await writeTree(path.join(home, "agents"), { ".keep": "", ...userAgents })
  await writeTree(path.join(root, ".crystal", "agents"), { ".keep": "", ...workspaceAgents })
  const load = () => loadAgents({ home, workspace: root })
  const decide = (answer: boolean, asked: Array<string>, assume = false) =>
    Effect.runPromise(decideTrust({ home, workspace: root, entries: agentTrustEntries(root, load().agents), assume, asker: asker(answer, asked) }))
  return { root, home, load, decide }
}

describe("trust for workspace agents that name a model", () => {
  it("asks only about workspace agents whose model is not inherit", async () => {
    const { root, load } = await setup(
      { "reviewer.md": reviewer("local/big"), "plain.md": reviewer("inherit"), "nomodel.md": "---\ndescription: d\n---\nP\n" },
      { "mine.md": reviewer("other/model") }
    )
    const entries = agentTrustEntries(root, load().agents)
    expect(entries.map((entry) => [entry.kind, entry.name, entry.describe, entry.details])).toEqual([
      ["agent", "reviewer", "runs on local/big instead of the session's model", [path.join(root, ".crystal", "agents", "reviewer.md")]]
    ])
  })

  it("untrusted (no person, or a no): offered on the session's model, and the note says so", async () => {
    const { root, load, decide } = await setup({ "reviewer.md": reviewer("local/big") }, { "mine.md": reviewer("other/model") })
    const asked: Array<string> = []
    const decision = await decide(false, asked)
    expect(asked).toEqual([
      `${root} supplies agents that pick their own model:\n  agent reviewer: runs on local/big instead of the session's model\n      ${path.join(root, ".crystal", "agents", "reviewer.md")}\nTrust them? (asked again when they change)`
    ])
    expect(decision.notes[0]?.split("\n")[0]).toBe(
      `agents run on the session's model until you trust them: reviewer (from ${root}; answer yes when asked, or pass --trust-project-tools)`
    )
    const usable = applyAgentTrust(load(), decision)
    expect(findAgent(usable, "reviewer")?.model).toBe("inherit")
    // The user's own agent keeps its model: it needs no trust.
    expect(findAgent(usable, "mine")?.model).toBe("other/model")
    // The decision's note already said it; no second note.
    expect(usable.notes).toEqual([])
  })

  it("trusted: keeps its model, remembered until the file names another model", async () => {
    const { root, load, decide } = await setup({ "reviewer.md": reviewer("local/big") })
    const asked: Array<string> = []
    const yes = await decide(true, asked)
    expect(findAgent(applyAgentTrust(load(), yes), "reviewer")?.model).toBe("local/big")
    const again = await decide(false, asked)
    expect(asked).toHaveLength(1)
    expect(findAgent(applyAgentTrust(load(), again), "reviewer")?.model).toBe("local/big")
    await fs.writeFile(path.join(root, ".crystal", "agents", "reviewer.md"), reviewer("pricey/huge"))
    const changed = await decide(false, asked)
    expect(asked).toHaveLength(2)
    expect(asked[1]).toContain("agent reviewer: runs on pricey/huge instead of the session's model")
    expect(findAgent(applyAgentTrust(load(), changed), "reviewer")?.model).toBe("inherit")
  })

  it("--trust-project-tools trusts the model without asking", async () => {
    const { load, decide } = await setup({ "reviewer.md": reviewer("local/big") })
    const asked: Array<string> = []
    const decision = await decide(false, asked, true)
    expect(asked).toEqual([])
    expect(findAgent(applyAgentTrust(load(), decision), "reviewer")?.model).toBe("local/big")
  })

  it("a file changed after the question is not trusted by the old answer, and gets its own note", async () => {
    const { root, load, decide } = await setup({ "reviewer.md": reviewer("local/big") })
    const decision = await decide(true, [])
    await fs.writeFile(path.join(root, ".crystal", "agents", "reviewer.md"), reviewer("pricey/huge"))
    const usable = applyAgentTrust(load(), decision)
    expect(findAgent(usable, "reviewer")?.model).toBe("inherit")
    expect(usable.notes).toEqual([
      `${path.join(root, ".crystal", "agents", "reviewer.md")}: agent "reviewer" names model pricey/huge; it runs on the session's model until you trust the workspace (answer yes when asked, or pass --trust-project-tools).`
    ])
  })

  it("the session's trust step (decideWorkspaceTrust) asks about them with the tool sets and MCP servers", async () => {
    const root = await tempDir()
    await writeTree(path.join(root, ".crystal", "agents"), { "reviewer.md": reviewer("local/big") })
    const prepared = preparedSession(root, { providers: { local: { protocol: "openai-chat", baseURL: "http://127.0.0.1:9/v1", models: { m: {} } } } }, "local/m")
    const asked: Array<string> = []
    const decision = await Effect.runPromise(decideWorkspaceTrust(prepared, asker(false, asked), []))
    expect(asked).toHaveLength(1)
    expect(asked[0]).toContain("agent reviewer: runs on local/big instead of the session's model")
    expect(decision.refused.map((entry) => [entry.kind, entry.name])).toEqual([["agent", "reviewer"]])
    const usable = applyAgentTrust(loadAgents({ home: prepared.paths.home, workspace: root }), decision)
    expect(findAgent(usable, "reviewer")?.model).toBe("inherit")
  })
})
