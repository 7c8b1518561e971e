/**
 * A workspace agent is text, not code, but its `model` decides which provider the child's
 * conversation (the task, the files it reads) is sent to, and what it costs. So a workspace agent
 * whose model is not `inherit` needs the same trust as the workspace's tool sets and MCP servers:
 * it joins the session's one trust question (kind "agent", keyed by its name and the model it
 * names; a file that later names another model is asked about again). Untrusted, the agent is
 * still offered, on the session's model: exactly what the same file without a `model` line would
 * get, so trusting nothing never hands the repository more than text can. The user's own agents
 * (~/.crystal/agents) and the built-ins need no trust.
 */
import { createHash } from "node:crypto"
import type { TrustDecision } from "../trust/trust-question.ts"
import { isTrusted, type TrustEntry } from "../trust/trust-store.ts"
import type { AgentDefinition } from "./definition.ts"
import type { LoadedAgents } from "./load.ts"

const needsTrust = (agent: AgentDefinition): agent is AgentDefinition & { readonly source: { readonly path: string; readonly scope: "workspace" } } =>
  agent.source !== "builtin" && agent.source.scope === "workspace" && agent.model !== "inherit"

const modelHash = (agent: AgentDefinition): string => createHash("sha256").update(JSON.stringify(["agent-model", agent.name, agent.model])).digest("hex")

/** The trust entry of a workspace agent that names its own model; undefined for every other agent. */
export const agentTrustEntry = (workspace: string, agent: AgentDefinition): TrustEntry | undefined =>
  needsTrust(agent)
    ? { kind: "agent", workspace, name: agent.name, hash: modelHash(agent), describe: `runs on ${agent.model} instead of the session's model`, details: [agent.source.path] }
    : undefined

/** What the session's trust question asks about the workspace's agents. */
export const agentTrustEntries = (workspace: string, agents: ReadonlyArray<AgentDefinition>): ReadonlyArray<TrustEntry> =>
  agents.flatMap((agent) => {
    const entry = agentTrustEntry(workspace, agent)
    return entry === undefined ? [] : [entry]
  })

/**
 * The agents as the session may use them: a workspace agent whose model the session's trust
 * decision did not trust runs on the session's model (`inherit`). The entry is computed again from
 * the agent as loaded now, so a file changed after the question was asked is not trusted by the
 * old answer; such an agent gets a note of its own (one the decision refused has the decision's).
 */
export const applyAgentTrust = (loaded: LoadedAgents, decision: Pick<TrustDecision, "trusted" | "refused">): LoadedAgents => {
  const agentKeys = (entries: ReadonlyArray<TrustEntry>) => new Set(entries.filter((entry) => entry.kind === "agent").map((entry) => `${entry.name}\0${entry.hash}`))
  const trusted = agentKeys(decision.trusted)
  const refused = agentKeys(decision.refused)
  const notes: Array<string> = []
  let changed = false
  const agents = loaded.agents.map((agent) => {
    const key = `${agent.name}\0${modelHash(agent)}`
    if (!needsTrust(agent) || trusted.has(key)) return agent
    if (!refused.has(key)) {
      notes.push(`${agent.source.path}: agent "${agent.name}" names model ${agent.model}; it runs on the session's model until you trust the workspace (answer yes when asked, or pass --trust-project-tools).`)
    }
    changed = true
    return { ...agent, model: "inherit" }
  })
  return changed ? { ...loaded, agents, notes: [...loaded.notes, ...notes] } : loaded
}

/**
 * For listings: whether a workspace agent's model is trusted now (an unreadable trust file trusts
 * nothing); undefined for an agent that needs no trust.
 */
export const modelTrusted = (home: string, workspace: string, agent: AgentDefinition): boolean | undefined => {
  const entry = agentTrustEntry(workspace, agent)
  if (entry === undefined) return undefined
  try {
    return isTrusted(home, entry)
  } catch {
    return false
  }
}
