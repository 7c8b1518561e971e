/**
 * The composition root of one session: the card's services (Providers, PromptResolver,
 * ApprovalPolicy, BackgroundBash, MediaStore, PluginLoader), the session's secrets (Redactor) and
 * the engine's own (Conversation, Toolbox, Compactor), made in the session's scope and handed to the
 * engine as one Context. Each service is made by the same `make` its static `layer` wraps; the
 * graph is written out by hand because building ~8 layers costs ~10 ms of cold start in the
 * compiled binary and these services depend on each other in one fixed order (docs/architecture.md).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import { ApprovalPolicy } from "../src/approval/approval-policy.ts"
import { BackgroundBash, type BackgroundBashShape } from "../src/bash/background-bash.ts"
import { scheduleReaping } from "../src/bash/containment.ts"
import { secretValues, shellEnvironment } from "../src/bash/shell-env.ts"
import { Redactor } from "../src/secrets/redactor.ts"
import { sandboxStartNote } from "../src/bash/sandbox-detect.ts"
import { compactionDefaults } from "../src/config/schema.ts"
import { Compactor, makeCompactor } from "../src/engine/compactor.ts"
import { Conversation, type ConversationShape } from "../src/engine/conversation.ts"
import { Operator, type OperatorShape } from "../src/engine/operator.ts"
import { Renderer, type RendererShape } from "../src/engine/renderer.ts"
import { redactingRenderer } from "../src/engine/redacting-renderer.ts"
import { makeReviewer } from "../src/engine/reviewer.ts"
import { chargedTo } from "../src/engine/usage-meter.ts"
import { makeSessionControls, type SessionControls } from "../src/engine/session-controls.ts"
import { nameSession, needsTitle } from "../src/engine/titler.ts"
import { Toolbox } from "../src/engine/toolbox.ts"
import { TurnCheckpoints, type TurnCheckpointsShape } from "../src/engine/turn-checkpoints.ts"
import { sessionCheckpoints } from "./session-checkpoints.ts"
import { MediaStore } from "../src/media/media-store.ts"
import { PromptResolver, type PromptResolverShape, type SidePrompts } from "../src/prompts/prompt-resolver.ts"
import type { PlaceholderRegistry } from "../src/prompts/placeholder-registry.ts"
import { Providers, type ProvidersShape } from "../src/providers/providers.ts"
import { PluginLoader, type PluginLoaderShape } from "../src/plugins/plugin-loader.ts"
import type { SessionDocument } from "../src/session/document.ts"
import { acquireSessionLock, SessionLocked } from "../src/session/lock.ts"
import { SessionStore } from "../src/session/store.ts"
import { redactingStore } from "../src/session/redacting-store.ts"
import { bashSettings } from "../src/tools/bash-session.ts"
import type { EditorFiles } from "../src/tools/tool.ts"
import type { McpServersShape } from "../src/mcp/mcp-servers.ts"
import { planLocation } from "../src/plans/location.ts"
import { PlanFile, type PlanFileShape } from "../src/plans/plan-file.ts"
import { readWorkspaceMcp, startMcpServers, trustedWorkspaceServers } from "./session-mcp.ts"
import { decideWorkspaceTrust, makeSessionToolbox } from "./session-tools.ts"
import type { AgentDefinition } from "../src/agents/definition.ts"
import { loadAgents } from "../src/agents/load.ts"
import { applyAgentTrust } from "../src/agents/agent-trust.ts"
import { agentsDefaults } from "../src/config/schema.ts"
import { makeTaskRunner } from "../src/engine/task-child.ts"
import { TaskRunner } from "../src/tools/task-tool.ts"
import { providedToolNames } from "../src/tools/tool-names.ts"
import type { PreparedSession } from "./prepare.ts"

export type SessionServices =
  | Providers
  | PromptResolver
  | ApprovalPolicy
  | BackgroundBash
  | MediaStore
  | Conversation
  | SessionStore
  | Toolbox
  | Compactor
  | Renderer
  | Operator
  | PluginLoader
  | Redactor
  | PlanFile
  | TaskRunner
  | TurnCheckpoints

/** What the process gives every session it starts: its environment, and where events and questions go. */
export interface SessionHostContext {
  readonly env: Readonly<Record<string, string | undefined>>
  readonly renderer: RendererShape
  readonly operator: OperatorShape
  /** An editor's files (`crystal acp`): the file tools read and write through it (src/tools/tool.ts EditorFiles). */
  readonly editorFiles?: EditorFiles | undefined
}

export interface Session {
  readonly services: Context.Context<SessionServices>
  readonly controls: SessionControls
  /** What the operator should know from the latest composition of the system text (a skipped prompt set, say). */
  readonly notes: ReadonlyArray<string>
  /** Where plugins register their placeholders; read at every composition. */
  readonly placeholders: PlaceholderRegistry
  /**
   * Names an untitled session after its first exchange (src/engine/titler.ts); tried once per
   * session in this process, it never fails. Returns the title it set.
   */
  readonly nameSession: (timeoutMs?: number) => Effect.Effect<string | undefined>
  /** Background tasks running now (0 before the first shell call). */
  readonly runningTasks: Effect.Effect<number>
  /** The session's MCP servers (/mcp); undefined when config.json names none. */
  readonly mcp: McpServersShape | undefined
  /** The session's plan file (docs/plans.md): its path is fixed by the home, plans.directory and the session's id. */
  readonly plan: PlanFileShape
  /** The session's checkpoints (/rewind): docs/checkpoints.md. */
  readonly checkpoints: TurnCheckpointsShape
}

/** One crystal process per session, for as long as the scope is open. */
const lockSession = (prepared: PreparedSession) =>
  Effect.acquireRelease(
    Effect.suspend(() => {
      const lock = acquireSessionLock(prepared.store.dir, prepared.document.id)
      return lock._tag === "Locked" ? Effect.succeed(lock) : Effect.fail(new SessionLocked({ id: prepared.document.id, pid: lock.pid }))
    }),
    (lock) => Effect.sync(lock.release)
  )

/** A side request's prompts for the document as it is when the request is made. */
const sidePrompts = (conversation: ConversationShape, prompts: (doc: SessionDocument) => Effect.Effect<SidePrompts>) =>
  Effect.flatMap(conversation.document, prompts)

const makeApprovalPolicy = (prepared: PreparedSession, providers: Pick<ProvidersShape, "current">, resolver: PromptResolverShape, conversation: ConversationShape) =>
  ApprovalPolicy.make({
    workspace: prepared.document.workspace,
    fixed: [
      { dir: prepared.spillDir, access: "read" },
      // Skills live in their folders, which the model reads after loading one.
      ...prepared.skills.map((skill) => ({ dir: skill.dir, access: "read" as const }))
    ],
    grants: prepared.document.access ?? [],
    reviewer: makeReviewer({ activeModel: providers, prompts: sidePrompts(conversation, resolver.review) })
  })

const makeSessionCompactor = (
  prepared: PreparedSession,
  providers: Pick<ProvidersShape, "current">,
  resolver: PromptResolverShape,
  conversation: ConversationShape,
  plugins: PluginLoaderShape
) =>
  makeCompactor({
    hooks: plugins.hooks.idle ? undefined : plugins.hooks,
    settings: {
      auto: prepared.config.compaction?.auto ?? compactionDefaults.auto,
      threshold: prepared.config.compaction?.threshold ?? compactionDefaults.threshold,
      keepRecentTokens: prepared.config.compaction?.keepRecentTokens ?? compactionDefaults.keepRecentTokens
    },
    activeModel: providers,
    prompts: sidePrompts(conversation, resolver.compaction)
  })

/** The session's services; the conversation flushes to disk and its processes die when the enclosing scope closes. */
export const startSession = (prepared: PreparedSession, host: SessionHostContext): Effect.Effect<Session, SessionLocked, Scope.Scope> =>
  Effect.gen(function* () {
    yield* lockSession(prepared)
    scheduleReaping(prepared.paths.home)
    // Computed on the first read: the first save of the session (write-behind, once the operator's
    // message is in), the first event shown, or the first tool call, whichever comes first.
    const redactor = yield* Redactor.make(() => [...secretValues(prepared.config, host.env), ...secretValues(prepared.config, process.env)])
    // Everything this session writes of itself, and everything it shows, is redacted of its secrets.
    const store = Context.make(SessionStore, redactingStore(prepared.store, redactor.secrets))
    const renderer = redactingRenderer(host.renderer, redactor)
    const conversation = yield* Conversation.make(prepared.document).pipe(Effect.provide(store))
    const providers = yield* Providers.make({ config: prepared.config, configFile: prepared.paths.configFile, env: host.env, initial: prepared.model })
    // Requests outside the turn loop go through this: what they cost joins the session's usage.
    const charged = chargedTo(conversation, providers)
    const plugins = PluginLoader.make({
      plugins: prepared.plugins?.plugins ?? [],
      loadNotes: prepared.plugins?.notes ?? [],
      note: renderer.note,
      configFile: prepared.paths.configFile
    })
    const resolver = PromptResolver.make({
      paths: prepared.paths,
      selection: prepared.prompts,
      skills: prepared.skills,
      disabledTools: prepared.disabledTools,
      hooks: plugins.hooks.idle ? undefined : plugins.hooks
    })
    if (!plugins.hooks.idle) yield* plugins.hooks.registerPlaceholders(resolver.placeholders)
    const policy = yield* makeApprovalPolicy(prepared, charged, resolver, conversation)
    // Commands run without the provider keys Crystal knows (README "Secrets").
    // Its home is where the session's first process writes this crystal's pid file (containment.ts).
    const bash = { ...bashSettings(prepared.config), env: shellEnvironment(prepared.config, host.env), home: prepared.paths.home }
    const background = yield* BackgroundBash.make({ ...bash, timeoutSeconds: bash.backgroundTimeoutSeconds })
    const media = yield* MediaStore.make(prepared.paths.mediaDir)
    // One trust question for the workspace's tool sets and MCP servers, before any of them starts.
    const workspaceMcp = yield* readWorkspaceMcp(prepared)
    const trust = yield* decideWorkspaceTrust(prepared, host.operator, workspaceMcp?.servers.map((server) => server.trust) ?? [])
    const trustNotes = [...(workspaceMcp?.notes ?? []), ...trust.notes]
    // Started now, in parallel with the rest; the first turn waits for them (bounded).
    const mcp = yield* startMcpServers(prepared, { policy, redactor, env: host.env, baseEnv: bash.env, workspaceServers: trustedWorkspaceServers(workspaceMcp, trust),
      operator: host.operator,
      note: (text) => Effect.runFork(renderer.note(text)),
      providers: charged,
      hooks: plugins.hooks.idle ? undefined : plugins.hooks
    })
    const plan = yield* PlanFile.make({
      location: planLocation({ home: prepared.paths.home, workspace: prepared.document.workspace, directory: prepared.config.plans?.directory, sessionId: prepared.document.id }),
      redact: redactor.redact
    })
    const agentSettings = {
      maxParallel: prepared.config.agents?.maxParallel ?? agentsDefaults.maxParallel,
      maxDepth: prepared.config.agents?.maxDepth ?? agentsDefaults.maxDepth
    }
    // A workspace agent naming its own model keeps it only if the session's trust question trusted it.
    const agents =
      agentSettings.maxDepth === 0
        ? undefined
        : applyAgentTrust(loadAgents({ home: prepared.paths.home, workspace: prepared.document.workspace, knownToolNames: providedToolNames }), trust)
    const toolbox = yield* makeSessionToolbox(prepared, {
      bash,
      conversation,
      policy,
      redactor,
      background,
      operator: host.operator,
      images: { providers, media, prompts: resolver, env: host.env },
      mcp,
      trust,
      plan,
      editorFiles: host.editorFiles,
      agents: agents?.agents
    })
    // A resumed session's system text is composed afresh from the current settings and prompts.
    const system = yield* resolver.compose(yield* conversation.document)
    yield* conversation.update((doc) => ({ ...doc, system }))
    const checkpoints = yield* sessionCheckpoints(prepared, { conversation, background, note: renderer.note })
    const sandboxNote = sandboxStartNote()
    const taskRunner = makeTaskRunner(
      {
        agents: agents?.agents ?? [],
        maxParallel: agentSettings.maxParallel,
        maxDepth: agentSettings.maxDepth,
        settings: { maxSteps: prepared.maxSteps, maxRetryWaitSeconds: prepared.config.retry?.maxWaitSeconds },
        modelFor: agentModel(prepared, host.env)
      },
      [],
      () => services
    )
    const services: Context.Context<SessionServices> = store.pipe(
      Context.add(Providers, providers),
      Context.add(PromptResolver, resolver),
      Context.add(ApprovalPolicy, policy),
      Context.add(BackgroundBash, background),
      Context.add(MediaStore, media),
      Context.add(Conversation, conversation),
      Context.add(Toolbox, toolbox),
      Context.add(Compactor, makeSessionCompactor(prepared, charged, resolver, conversation, plugins)),
      Context.add(Renderer, renderer),
      Context.add(Operator, host.operator),
      Context.add(PluginLoader, plugins),
      Context.add(Redactor, redactor),
      Context.add(PlanFile, plan),
      Context.add(TaskRunner, taskRunner),
      Context.add(TurnCheckpoints, checkpoints)
    )
    yield* pluginMoments(plugins, conversation)
    return {
      services,
      controls: makeSessionControls(),
      get notes() {
        return [...resolver.notes(), ...(sandboxNote === undefined ? [] : [sandboxNote]), ...trustNotes, ...(toolbox.external?.notes() ?? []), ...(agents?.notes ?? [])]
      },
      placeholders: resolver.placeholders,
      nameSession: titleOnce(charged, resolver, conversation),
      runningTasks: runningTasks(background),
      mcp,
      plan,
      checkpoints
    }
  })

/**
 * An agent naming its own model gets a Providers of its own (the session's active model is not
 * switched). A workspace agent's model has passed the trust question by now (applyAgentTrust).
 */
const agentModel =
  (prepared: PreparedSession, env: SessionHostContext["env"]) =>
  (agent: AgentDefinition): Effect.Effect<ProvidersShape, { readonly message: string }> =>
    Effect.gen(function* () {
      const providers = yield* Providers.make({ config: prepared.config, configFile: prepared.paths.configFile, env, initial: prepared.model })
      yield* providers.switchTo(agent.model, `agent ${agent.name}`)
      return providers
    })

/** The titler, tried once per session in this process. */
const titleOnce = (providers: Pick<ProvidersShape, "current">, resolver: PromptResolverShape, conversation: ConversationShape) => {
  let tried = false
  return (timeoutMs?: number) =>
    Effect.gen(function* () {
      if (tried || !needsTitle(yield* conversation.document)) return undefined
      tried = true
      return yield* nameSession({ activeModel: providers, prompts: sidePrompts(conversation, resolver.topic), timeoutMs })
    }).pipe(Effect.provideService(Conversation, conversation))
}

const runningTasks = (background: BackgroundBashShape): Effect.Effect<number> =>
  Effect.map(background.list, (tasks) => tasks.filter((task) => task.state.status === "running").length)


/**
 * SPEC H4: a session starts (onSessionStarted) once its services
 * exist, and ends (onSessionEnded, with the workspace and session it leaves) when its scope
 * closes: on exit, /clear, /resume, /fork, and before /cd or /space start the next one.
 */
const pluginMoments = (plugins: PluginLoaderShape, conversation: ConversationShape) =>
  Effect.gen(function* () {
    if (plugins.hooks.idle) return
    const info = Effect.map(conversation.document, (doc) => ({ workspace: doc.workspace, sessionId: doc.id, approval: doc.approval }))
    yield* plugins.hooks.sessionStarted(yield* info)
    yield* Effect.addFinalizer(() => Effect.flatMap(info, plugins.hooks.sessionEnded))
  })
