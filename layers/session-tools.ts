/**
 * The tools of one session: the built-in ones, and those that need the session's services (the
 * todo list in the conversation, questions to the operator, skills, the shell on BackgroundBash),
 * in the Toolbox the engine picks each mode's catalog from.
 */
import type { EditorFiles } from "../src/tools/tool.ts"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { ApprovalPolicyShape } from "../src/approval/approval-policy.ts"
import type { BackgroundBashShape } from "../src/bash/background-bash.ts"
import { assembleCatalog } from "../src/engine/catalog.ts"
import type { RedactorShape } from "../src/secrets/redactor.ts"
import type { ConversationShape } from "../src/engine/conversation.ts"
import type { OperatorShape } from "../src/engine/operator.ts"
import type { ToolboxShape } from "../src/engine/toolbox.ts"
import { makeToolImages, type ToolImagesDeps } from "../src/engine/tool-images.ts"
import type { BashSettings, CommandClassifier } from "../src/tools/bash-specs.ts"
import { sessionBashTools } from "../src/tools/bash-session.ts"
import { makeBuiltinTools, makeImageTools, makeWebFetchTools } from "../src/tools/builtin.ts"
import { SearchIndexCache } from "../src/search/cache.ts"
import { makeQuestionTool } from "../src/tools/question-tool.ts"
import { makeSkillTool } from "../src/tools/skill-tool.ts"
import { makeSpill } from "../src/tools/spill.ts"
import { makeTodoTools } from "../src/tools/todo-tools.ts"
import { makeTaskTool } from "../src/tools/task-tool.ts"
import type { AgentDefinition } from "../src/agents/definition.ts"
import { makePlanTool } from "../src/tools/plan-tool.ts"
import { makeProposePlanTool } from "../src/tools/propose-plan-tool.ts"
import type { PlanFileShape } from "../src/plans/plan-file.ts"
import type { McpServersShape } from "../src/mcp/mcp-servers.ts"
import type { PreparedSession } from "./prepare.ts"
import { providedToolNames, reservedToolNames } from "../src/tools/tool-names.ts"
import type { ExternalToolsControl } from "../src/external-tools/session-tools.ts"
import { configDefaults } from "../src/config/schema.ts"
import type { TrustAsker, TrustDecision } from "../src/trust/trust-question.ts"
import type { TrustEntry } from "../src/trust/trust-store.ts"

export interface SessionToolDeps {
  readonly bash: BashSettings
  readonly conversation: ConversationShape
  readonly policy: ApprovalPolicyShape
  /** The session's secrets: each call's context carries them, tool sets' definitions are redacted of them. */
  readonly redactor: RedactorShape
  readonly background: BackgroundBashShape
  readonly operator: OperatorShape
  readonly images: Omit<ToolImagesDeps, "conversation" | "config" | "configFile">
  /** The session's MCP servers, when config.json names any: their tools come last in every catalog. */
  readonly mcp?: McpServersShape | undefined
  /** The session's one trust decision over the workspace's code (decideWorkspaceTrust). */
  readonly trust: TrustDecision
  /** The session's plan file: the plan tool writes it and nothing else. */
  readonly plan: PlanFileShape
  /** Where files are read and written when an editor hosts the session (`crystal acp`); absent: the disk. */
  readonly editorFiles?: EditorFiles | undefined
  /** The agents the `task` tool offers; undefined: no `task` tool (agents.maxDepth 0). */
  readonly agents?: ReadonlyArray<AgentDefinition> | undefined
}

/** The shell classifier loads with the first shell call; Crystal's home (config, sessions) is off limits to commands. */
const shellClassifier =
  (home: string): CommandClassifier =>
  (command, context) =>
    Effect.promise(() => import("../src/approval/bash/classify.ts")).pipe(
      Effect.flatMap((classifier) => classifier.classifyBash(command, context.fence, { protectedDirs: [home] }))
    )

export const makeSessionToolbox = (prepared: PreparedSession, deps: SessionToolDeps): Effect.Effect<ToolboxShape, never, Scope.Scope> =>
  Effect.gen(function* () {
    const { todowrite, todoread } = makeTodoTools({
      get: Effect.map(deps.conversation.document, (doc) => doc.todos ?? []),
      set: (todos) => deps.conversation.update((doc) => ({ ...doc, todos })).pipe(Effect.zipRight(deps.conversation.save))
    })
    // The search indexes belong to this session: dropped with it, never seen by the next one.
    const searchIndexes = yield* Effect.acquireRelease(Effect.sync(() => new SearchIndexCache()), (cache) => Effect.sync(() => cache.clear()))
    const planScope = prepared.config.plans?.directory === undefined ? ("outside" as const) : ("workspace" as const)
    const tools = [
      ...makeBuiltinTools(searchIndexes),
      todowrite,
      todoread,
      makePlanTool({ plan: deps.plan, scope: planScope }),
      makeProposePlanTool({ plan: deps.plan, scope: planScope, decide: deps.operator.proposePlan }),
      makeQuestionTool(deps.operator),
      ...(prepared.skills.length > 0 ? [makeSkillTool(prepared.skills)] : []),
      ...makeImageTools({ describe: prepared.config.imageModel !== undefined }),
      ...makeWebFetchTools(prepared.config.webFetch),
      ...(yield* sessionBashTools(deps.bash, deps.background, shellClassifier(prepared.paths.home))),
      ...(deps.agents === undefined ? [] : [makeTaskTool(deps.agents)])
    ]
    const disabled = new Set(prepared.disabledTools)
    const external = yield* sessionExternalTools(prepared, deps)
    const mcp = deps.mcp
    const spill = makeSpill(prepared.spillDir)
    const images = makeToolImages({ ...deps.images, conversation: deps.conversation, config: prepared.config, configFile: prepared.paths.configFile })
    return {
      // Built-in tools, then tool sets (external: true sorts them last), then MCP servers' tools.
      catalog: (mode) => {
        const imageInput = deps.images.providers.current().entry.capabilities.imageInput
        const own = assembleCatalog(mode, external === undefined ? tools : [...tools, ...external.tools()], disabled, imageInput)
        return mcp === undefined ? own : [...own, ...assembleCatalog(mode, mcp.tools(), disabled, imageInput)]
      },
      ...(mcp === undefined ? {} : { beforeTurn: mcp.beforeTurn }),
      context: Effect.zipWith(deps.policy.fence, deps.redactor.secrets, (fence, secrets) => ({
        fence,
        sessionId: prepared.document.id,
        secrets,
        spill,
        spillDir: prepared.spillDir,
        images,
        ...(deps.editorFiles === undefined ? {} : { editorFiles: deps.editorFiles })
      })),
      fileWriters: new Set(tools.filter((tool) => tool.writesThroughFence === true).map((tool) => tool.name)),
      external
    }
  })

/**
 * One trust question for everything the workspace supplies that can run code (SPEC B2): its tool
 * sets and its MCP servers (`mcpEntries`, kind "mcp"), asked once, before any of them starts; and
 * its agent files that name their own model (kind "agent": src/agents/agent-trust.ts, applied with
 * applyAgentTrust wherever the session's agents are loaded).
 */
export const decideWorkspaceTrust = (prepared: PreparedSession, asker: TrustAsker, mcpEntries: ReadonlyArray<TrustEntry>): Effect.Effect<TrustDecision> =>
  Effect.gen(function* () {
    const enabled = prepared.config.externalTools ?? configDefaults.externalTools
    const [module, discover, question, agentLoad, agentTrust] = yield* Effect.promise(() =>
      Promise.all([
        import("../src/external-tools/session-tools.ts"),
        import("../src/external-tools/discover.ts"),
        import("../src/trust/trust-question.ts"),
        import("../src/agents/load.ts"),
        import("../src/agents/agent-trust.ts")
      ])
    )
    const home = prepared.paths.home
    const workspace = prepared.document.workspace
    const toolSets = enabled ? module.projectTrustEntries(workspace, discover.discoverToolSets(home, workspace)) : []
    const agents = agentTrust.agentTrustEntries(workspace, agentLoad.loadAgents({ home, workspace, knownToolNames: providedToolNames }).agents)
    return yield* question.decideTrust({ home, workspace, entries: [...toolSets, ...mcpEntries, ...agents], assume: prepared.trustProjectTools === true, asker })
  })

/**
 * The tool sets (SPEC X1–X5). The workspace's sets run only as the session's trust decision says;
 * its notes are the session's (they may name MCP servers too), not the tool sets'.
 */
const sessionExternalTools = (prepared: PreparedSession, deps: SessionToolDeps): Effect.Effect<ExternalToolsControl | undefined> =>
  Effect.gen(function* () {
    const enabled = prepared.config.externalTools ?? configDefaults.externalTools
    const module = yield* Effect.promise(() => import("../src/external-tools/session-tools.ts"))
    return yield* module.makeExternalTools(
      {
        home: prepared.paths.home,
        workspace: prepared.document.workspace,
        enabled,
        assumeTrust: prepared.trustProjectTools === true,
        asker: deps.operator,
        reserved: reservedToolNames,
        approval: Effect.map(deps.conversation.document, (doc) => doc.approval),
        env: deps.bash.env ?? process.env,
        redactor: deps.redactor
      },
      { ...deps.trust, notes: [] }
    )
  })
