/**
 * A session's external tools (SPEC X1–X5, B2): discovery, the trust step for the workspace's sets,
 * both runners, name clashes, and the session-only switches behind /tools (on|off|reload,
 * enable|disable DIR, home|project author|host). The tools are plain Tool values the session's
 * Toolbox offers after every built-in tool, so they pass the same executor, hooks and approval.
 * What the model reads of them is redacted of the session's secrets like an MCP server's (a module
 * set computes its definitions in Crystal's own process, environment included): descriptions and
 * parameter schemas are redacted, and a tool whose name holds a secret is skipped with a note that
 * does not repeat the name (the model calls a tool by its name, so a name cannot be redacted).
 */
import * as Effect from "effect/Effect"
import type { ApprovalMode } from "../approval/policy.ts"
import { holdsSecret, redactJson, redactText } from "../secrets/redact.ts"
import type { RedactorShape } from "../secrets/redactor.ts"
import type { Secrets } from "../secrets/secrets.ts"
import { shellWord, shellWords } from "../terminal/shell-words.ts"
import type { Tool } from "../tools/tool.ts"
import { inlineCodeNote } from "../trust/command-words.ts"
import { decideTrust, type TrustAsker, type TrustDecision } from "../trust/trust-question.ts"
import type { TrustEntry } from "../trust/trust-store.ts"
import { discoverToolSets, type Discovery, type LoadableSet, type ToolSetEntry, type ToolSource } from "./discover.ts"
import { setToolSetEnabled, type ToolSetChangeError } from "./enable.ts"
import { makeExecTool } from "./exec-tool.ts"
import { defaultApprovalAuthority, type ApprovalAuthority, type ExternalToolHost } from "./host.ts"
import type { ModuleManifest } from "./manifest.ts"

export interface ExternalToolRow {
  readonly name: string
  readonly set: string
  readonly source: ToolSource
  readonly runner: "exec" | "module"
  /** "always" when the author's declaration makes every call ask in this session, else "policy". */
  readonly approval: "always" | "policy"
  /** What the author declared in tools.json. */
  readonly declared: "always" | "policy"
  readonly classifier: boolean
  readonly catalogs: ReadonlyArray<string>
}

export interface ExternalToolsOptions {
  readonly home: string
  readonly workspace: string
  /** config.json "externalTools" (default true). */
  readonly enabled: boolean
  /** --trust-project-tools or config "trustProjectTools": trust the workspace's sets without asking. */
  readonly assumeTrust: boolean
  readonly asker: TrustAsker
  /** Names no external tool may take (built-in and --disable-tool names). */
  readonly reserved: ReadonlySet<string>
  readonly approval: Effect.Effect<ApprovalMode>
  readonly env: NodeJS.ProcessEnv
  /** The session's secrets, read at each load. */
  readonly redactor: Pick<RedactorShape, "secrets">
}

export interface ExternalToolsControl {
  readonly tools: () => ReadonlyArray<Tool>
  readonly rows: () => ReadonlyArray<ExternalToolRow>
  /** What the latest load had to say (skipped sets, clashes, untrusted sets). */
  readonly notes: () => ReadonlyArray<string>
  readonly entries: () => ReadonlyArray<ToolSetEntry>
  readonly discovering: () => boolean
  /** /tools on|off (this session only). */
  readonly setDiscovery: (on: boolean) => Effect.Effect<ReadonlyArray<string>>
  readonly reload: Effect.Effect<ReadonlyArray<string>>
  /** /tools enable|disable DIR: edits the set's tools.json, then reloads. */
  readonly setEnabled: (name: string, enabled: boolean) => Effect.Effect<ReadonlyArray<string>, ToolSetChangeError>
  readonly authority: (source: ToolSource) => ApprovalAuthority
  readonly setAuthority: (source: ToolSource, authority: ApprovalAuthority) => void
}

/**
 * What the operator is asked to trust for a project set: its runner and what it runs. An exec
 * tool's program runs in the workspace root with Crystal's environment (nothing from the
 * repository), so its argv is all there is to show; a module is imported into Crystal itself.
 */
export const trustEntryFor = (workspace: string, set: LoadableSet): TrustEntry => ({
  kind: "tools",
  workspace,
  name: set.name,
  hash: set.hash,
  ...(set.manifest.runner === "module"
    ? { describe: `module ${shellWord(set.manifest.entry)} (imported into Crystal itself)`, details: [] }
    : {
        describe: `each tool runs its program in ${shellWord(workspace)}`,
        details: set.manifest.tools.flatMap((tool) => {
          const inline = inlineCodeNote(tool.command)
          return [`${tool.name} → ${shellWords(tool.command)}`, ...(inline === undefined ? [] : [`${tool.name} ${inline}`])]
        })
      })
})

/** The workspace's sets that need the operator's trust before they may run. */
export const projectTrustEntries = (workspace: string, discovery: Discovery): ReadonlyArray<TrustEntry> =>
  discovery.sets.filter((set) => set.source === "project").map((set) => trustEntryFor(workspace, set))

interface Loaded {
  readonly tools: ReadonlyArray<Tool>
  readonly rows: ReadonlyArray<ExternalToolRow>
  readonly notes: ReadonlyArray<string>
  readonly entries: ReadonlyArray<ToolSetEntry>
}

const nothing: Loaded = { tools: [], rows: [], notes: [], entries: [] }

/** The tool as the model reads it: description and parameter schema without the session's secrets. */
const redactedDefinition = (secrets: Secrets, tool: Tool): Tool => {
  const description = redactText(secrets, tool.description)
  const json = redactJson(secrets, tool.parameters.json, { type: "object" })
  if (description === tool.description && json === tool.parameters.json) return tool
  // Calls are still checked (parameters.check) against the schema as the set declared it.
  return { ...tool, description, parameters: { ...tool.parameters, json } }
}

export const makeExternalTools = (options: ExternalToolsOptions, firstTrust?: TrustDecision): Effect.Effect<ExternalToolsControl> =>
  Effect.gen(function* () {
    const authorities: Record<ToolSource, ApprovalAuthority> = { ...defaultApprovalAuthority }
    let on = options.enabled
    const host: ExternalToolHost = {
      home: options.home,
      workspace: options.workspace,
      approval: options.approval,
      env: options.env,
      approvalAuthority: (source) => authorities[source]
    }

    const load = (decided: TrustDecision | undefined): Effect.Effect<Loaded> =>
      Effect.gen(function* () {
        if (!on) return nothing
        const discovery = discoverToolSets(options.home, options.workspace)
        const notes = [...discovery.notes]
        const entries = projectTrustEntries(options.workspace, discovery)
        const decision =
          decided ?? (yield* decideTrust({ home: options.home, workspace: options.workspace, entries, assume: options.assumeTrust, asker: options.asker }))
        notes.push(...decision.notes)
        const secrets = yield* options.redactor.secrets
        const trusted = new Set(decision.trusted.filter((entry) => entry.kind === "tools").map((entry) => `${entry.name}\0${entry.hash}`))
        const tools: Array<Tool> = []
        const rows: Array<ExternalToolRow> = []
        const taken = new Map<string, string>()
        for (const set of discovery.sets) {
          if (set.source === "project" && !trusted.has(`${set.name}\0${set.hash}`)) continue
          const loaded =
            set.manifest.runner === "exec"
              ? {
                  tools: set.manifest.tools.map((declaration) => ({ tool: makeExecTool(set, declaration, host), approval: declaration.approval })),
                  notes: [],
                  hasClassifier: false
                }
              : yield* Effect.map(
                  Effect.promise(() => import("./module-tool.ts")).pipe(
                    Effect.flatMap((module) => module.loadModuleSet(set as LoadableSet & { readonly manifest: ModuleManifest }, host))
                  ),
                  (result) => ({
                    tools: result.tools.map((tool) => ({ tool, approval: (set.manifest as ModuleManifest).approval })),
                    notes: result.notes,
                    hasClassifier: result.hasClassifier
                  })
                )
          notes.push(...loaded.notes)
          for (const { tool: declared, approval } of loaded.tools) {
            if (holdsSecret(secrets, declared.name)) {
              notes.push(`${set.manifestFile}: a tool is skipped: its name holds a secret of this session (a key from Crystal's environment, or a piece of one)`)
              continue
            }
            const tool = redactedDefinition(secrets, declared)
            if (options.reserved.has(tool.name)) {
              notes.push(`${set.manifestFile}: tool ${tool.name} is skipped: the name belongs to a built-in tool`)
              continue
            }
            const owner = taken.get(tool.name)
            if (owner !== undefined) {
              notes.push(`${set.manifestFile}: tool ${tool.name} is skipped: tool set ${owner} already provides it`)
              continue
            }
            taken.set(tool.name, set.name)
            tools.push(tool)
            rows.push({
              name: tool.name,
              set: set.name,
              source: set.source,
              runner: set.manifest.runner,
              approval: "policy",
              declared: approval,
              classifier: loaded.hasClassifier,
              catalogs: set.manifest.catalogs
            })
          }
        }
        return { tools, rows, notes, entries: discovery.entries }
      })

    let current = yield* load(firstTrust)
    const reload = Effect.map(
      Effect.suspend(() => load(undefined)),
      (next) => {
        current = next
        return next.notes
      }
    )
    return {
      tools: () => current.tools,
      rows: () => current.rows.map((row) => ({ ...row, approval: row.declared === "always" && authorities[row.source] === "author" ? "always" : "policy" })),
      notes: () => current.notes,
      entries: () => current.entries,
      discovering: () => on,
      setDiscovery: (value) =>
        Effect.suspend(() => {
          on = value
          return reload
        }),
      reload,
      setEnabled: (name, enabled) => Effect.flatMap(setToolSetEnabled(options.home, options.workspace, name, enabled), (result) => Effect.map(reload, (notes) => [result.message, ...notes])),
      authority: (source) => authorities[source],
      setAuthority: (source, authority) => {
        // The tools read it at each call's classification.
        authorities[source] = authority
      }
    }
  })
