/**
 * The agents a session can hand work to (issue 26): the built-ins, then ~/.crystal/agents/*.md
 * (scope "user"), then <workspace>/.crystal/agents/*.md (scope "workspace"), a later one replacing
 * an earlier one of the same name — the workspace wins over the user's files, which win over the
 * built-ins, as with slash commands and skills (the repository's agent is the one its people
 * share). Files are read through readConfined: a link out of the home or workspace, a FIFO, a
 * device or a file over 1 MiB is refused with a note. A refused file is skipped with a note and
 * hides nothing: the agent of that name from the next scope down stays.
 *
 * A workspace agent is text, but its `model` can send the conversation to another provider:
 * agent-trust.ts applies the session's trust decision to that field before the agents are used.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { crystalHomeRoot, maxInstructionBytes, readConfined, workspaceRoot, type ConfinedRoot } from "../files/confined-read.ts"
import { parseAgentFile } from "./agent-file.ts"
import { builtinAgents } from "./builtin.ts"
import type { AgentDefinition } from "./definition.ts"

export interface LoadedAgents {
  /** By name. */
  readonly agents: ReadonlyArray<AgentDefinition>
  /** One line per file skipped, naming the file and what was wrong. */
  readonly notes: ReadonlyArray<string>
  /** Agents a later scope replaced, by name (what `crystal agents show` says a file overrides). */
  readonly replaced: ReadonlyMap<string, ReadonlyArray<AgentDefinition>>
}

/** More than anyone hands work to; a folder with more is not a list of agents. */
const maxAgentFiles = 200

export const userAgentsDir = (home: string): string => path.join(home, "agents")
export const workspaceAgentsDir = (workspace: string): string => path.join(workspace, ".crystal", "agents")

const agentFiles = (dir: string, notes: Array<string>): ReadonlyArray<string> => {
  let names: Array<string>
  try {
    names = fs.readdirSync(dir).filter((name) => name.endsWith(".md")).sort()
  } catch {
    return []
  }
  if (names.length > maxAgentFiles) {
    notes.push(`${dir}: more than ${maxAgentFiles} agent files; only the first ${maxAgentFiles} (by name) are read.`)
    names.length = maxAgentFiles
  }
  return names.map((name) => path.join(dir, name))
}

/** "built-in", or the file an agent was read from. */
export const sourceLabel = (agent: AgentDefinition): string => (agent.source === "builtin" ? "built-in" : agent.source.path)

const readScope = (
  dir: string,
  root: ConfinedRoot,
  scope: "user" | "workspace",
  knownToolNames: ReadonlyArray<string>,
  notes: Array<string>
): ReadonlyArray<AgentDefinition> => {
  const found = new Map<string, AgentDefinition>()
  for (const file of agentFiles(dir, notes)) {
    const read = readConfined(root, file, maxInstructionBytes)
    if (read._tag === "Missing") continue
    if (read._tag === "Refused") {
      notes.push(`${read.note}; agent skipped.`)
      continue
    }
    const parsed = parseAgentFile(read.text, { file, scope, knownToolNames })
    if (parsed._tag === "Refused") {
      notes.push(parsed.note)
      continue
    }
    const earlier = found.get(parsed.agent.name)
    if (earlier !== undefined) {
      notes.push(`${file}: agent "${parsed.agent.name}" is already defined by ${sourceLabel(earlier)} in the same folder; agent skipped.`)
      continue
    }
    found.set(parsed.agent.name, parsed.agent)
  }
  return [...found.values()]
}

export interface LoadAgentsOptions {
  /** The Crystal home (CrystalPaths.home): its agents/ folder. */
  readonly home: string
  readonly workspace: string
  /**
   * The tools this build provides (src/tools/tool-names.ts providedToolNames): a `tools` entry that
   * is one of them in another case (`Read`) is refused with the right spelling. Empty: no such check.
   */
  readonly knownToolNames?: ReadonlyArray<string>
}

const realPath = (dir: string): string | undefined => {
  try {
    return fs.realpathSync(dir)
  } catch {
    return undefined
  }
}

export const loadAgents = (options: LoadAgentsOptions): LoadedAgents => {
  const notes: Array<string> = []
  const known = options.knownToolNames ?? []
  const byName = new Map<string, AgentDefinition>(builtinAgents.map((agent) => [agent.name, agent]))
  const replaced = new Map<string, Array<AgentDefinition>>()
  const userDir = userAgentsDir(options.home)
  const workspaceDir = workspaceAgentsDir(options.workspace)
  // A session started in the home directory would read ~/.crystal/agents twice, the second time
  // as the workspace's (asking to trust the operator's own models).
  const sameFolder = realPath(userDir) !== undefined && realPath(userDir) === realPath(workspaceDir)
  const scopes = [
    readScope(userDir, crystalHomeRoot(options.home), "user", known, notes),
    sameFolder ? [] : readScope(workspaceDir, workspaceRoot(options.workspace), "workspace", known, notes)
  ]
  for (const agents of scopes) {
    for (const agent of agents) {
      const earlier = byName.get(agent.name)
      if (earlier !== undefined) replaced.set(agent.name, [earlier, ...(replaced.get(agent.name) ?? [])])
      byName.set(agent.name, agent)
    }
  }
  const agents = [...byName.values()].sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  return { agents, notes, replaced }
}

/** The agent of that name, or undefined. */
export const findAgent = (loaded: LoadedAgents, name: string): AgentDefinition | undefined => loaded.agents.find((agent) => agent.name === name)
