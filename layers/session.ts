/**
 * The services of one session, composed once here and provided once by the command that runs it.
 * Built as a Context rather than a Layer graph: Layer construction costs ~10 ms of cold start in
 * the compiled binary, and these services have no dependencies worth a graph.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { BackgroundBashShape } from "../src/bash/background.ts"
import { makePathFence, type PathFence } from "../src/approval/path-fence.ts"
import { sandboxStartNote } from "../src/bash/sandbox-detect.ts"
import type { PreparedSession } from "../src/cli/prepare.ts"
import { ActiveModel } from "../src/engine/active-model.ts"
import { assembleCatalog } from "../src/engine/catalog.ts"
import { Conversation } from "../src/engine/conversation.ts"
import { Operator, type OperatorShape } from "../src/engine/operator.ts"
import { Renderer, type RendererShape } from "../src/engine/renderer.ts"
import { makeSessionControls, type SessionControls } from "../src/engine/session-controls.ts"
import { Toolbox, type ToolboxShape } from "../src/engine/toolbox.ts"
import { makeReviewer, Reviewer } from "../src/engine/reviewer.ts"
import { nameSession, needsTitle } from "../src/engine/titler.ts"
import { Compactor, makeCompactor } from "../src/engine/compactor.ts"
import { bindPlaceholders } from "../src/prompts/placeholders.ts"
import { composePrompt } from "../src/prompts/compose.ts"
import { resolvePrompt } from "../src/prompts/resolver.ts"
import { makePlaceholderRegistry, type PlaceholderRegistry } from "../src/prompts/placeholder-registry.ts"
import { promptSources } from "../src/prompts/selection.ts"
import { readInstructions } from "../src/prompts/instructions.ts"
import { hostValues } from "../src/prompts/values.ts"
import { checkCredentials, resolveModel } from "../src/providers/catalog.ts"
import type { ModelClientShape } from "../src/providers/model-client.ts"
import { makeModelClient } from "../src/providers/registry.ts"
import type { AccessGrant, SessionDocument } from "../src/session/document.ts"
import { acquireSessionLock } from "../src/session/lock.ts"
import { SessionStore } from "../src/session/store.ts"
import { ConfigError } from "../src/config/errors.ts"
import { compactionDefaults } from "../src/config/schema.ts"
import { builtinTools } from "../src/tools/builtin.ts"
import { makeSpill } from "../src/tools/spill.ts"
import { skillsListing } from "../src/skills/discover.ts"
import { sessionBashTools } from "../src/tools/bash-session.ts"
import { makeQuestionTool } from "../src/tools/question-tool.ts"
import { makeSkillTool } from "../src/tools/skill-tool.ts"
import { makeTodoTools } from "../src/tools/todo-tools.ts"
import type { Tool } from "../src/tools/tool.ts"

export type SessionServices = ActiveModel | Renderer | Operator | Toolbox | Conversation | SessionStore | Compactor

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
}

/** The session's services; the conversation flushes to disk and its processes die when the enclosing scope closes. */
export const startSession = (
  prepared: PreparedSession,
  client: ModelClientShape,
  renderer: RendererShape,
  operator: OperatorShape
): Effect.Effect<Session, ConfigError, Scope.Scope> =>
  Effect.gen(function* () {
    const workspace = prepared.document.workspace
    const fenceFor = (grants: ReadonlyArray<AccessGrant>): PathFence =>
      makePathFence(workspace, [
        { dir: prepared.spillDir, access: "read" },
        // Skills live in their folders, which the model reads after loading one.
        ...prepared.skills.map((skill) => ({ dir: skill.dir, access: "read" as const })),
        ...grants.map((grant) => ({ dir: grant.dir, access: grant.access }))
      ])
    yield* Effect.acquireRelease(
      Effect.sync(() => acquireSessionLock(prepared.store.dir, prepared.document.id)).pipe(
        Effect.flatMap((lock) =>
          lock._tag === "Locked"
            ? Effect.succeed(lock)
            : Effect.fail(
                new ConfigError({
                  message: `session ${prepared.document.id} is open in another crystal process (pid ${lock.pid}); close it there first, or start a new session`
                })
              )
        )
      ),
      (lock) => Effect.sync(lock.release)
    )
    const store = Context.make(SessionStore, prepared.store)
    const conversation = yield* Conversation.make(prepared.document).pipe(Effect.provide(store))
    const { todowrite, todoread } = makeTodoTools({
      get: Effect.map(conversation.document, (doc) => doc.todos ?? []),
      set: (todos) => conversation.update((doc) => ({ ...doc, todos })).pipe(Effect.zipRight(conversation.save))
    })
    let background: BackgroundBashShape | undefined
    const bashTools = yield* sessionBashTools(
      prepared.config,
      yield* Effect.scope,
      (command, context) =>
        // The classifier loads with the first shell call; Crystal's home (config, sessions) is off limits to commands.
        Effect.promise(() => import("../src/approval/bash-classifier.ts")).pipe(
          Effect.flatMap((classifier) => classifier.classifyCommand(command, context.fence, { protectedDirs: [prepared.paths.home] }))
        ),
      (service) => {
        background = service
      }
    )
    const sessionTools = [
      todowrite,
      todoread,
      makeQuestionTool(operator),
      ...(prepared.skills.length > 0 ? [makeSkillTool(prepared.skills)] : []),
      ...bashTools
    ]
    const tools = new Map<string, Tool>([...builtinTools, ...sessionTools].map((tool) => [tool.name, tool]))
    const disabled = new Set(prepared.disabledTools)
    let fence = fenceFor(prepared.document.access ?? [])
    const spill = makeSpill(prepared.spillDir)
    const toolbox: ToolboxShape = {
      catalog: (mode) => assembleCatalog(mode, tools, disabled),
      context: () => ({ fence, sessionId: prepared.document.id, spill, spillDir: prepared.spillDir }),
      setFence: (next) => {
        fence = next
      },
      sessionGrants: new Set()
    }
    const sources = () => promptSources(prepared.paths, prepared.prompts)
    const placeholders = makePlaceholderRegistry()
    let notes: ReadonlyArray<string> = []
    const sandboxNote = sandboxStartNote()
    /**
     * Host placeholder values for `doc`. Work and Plan get the workspace's instructions and the
     * skills; side requests (reviewer, compaction, title) never do, and the reviewer and compaction
     * have their own {{mode}}.
     */
    const valuesFor = (doc: SessionDocument, side?: { readonly mode: "review" | "compaction" | undefined }) => {
      const values = hostValues({
        workspace,
        mode: doc.mode,
        approval: doc.approval,
        model: doc.model,
        sessionId: doc.id,
        disabledTools: prepared.disabledTools,
        access: doc.access ?? [],
        instructions: side === undefined ? readInstructions(workspace) : [],
        skills: side === undefined ? skillsListing(prepared.skills) : "",
        now: new Date()
      })
      return placeholders.withHostValues(side?.mode === undefined ? values : new Map([...values, ["mode", side.mode]]))
    }
    const compose = (doc: SessionDocument): string => {
      const { locations, attachments, notes: found } = sources()
      const composed = composePrompt(doc.mode, valuesFor(doc), locations, attachments)
      notes = [...found, ...composed.notes]
      return composed.text
    }
    // A resumed session's system text is composed afresh from the current settings and prompts.
    yield* conversation.update((doc) => ({ ...doc, system: compose(doc) }))
    const activeModel = ActiveModel.holding({ entry: prepared.model, client })
    const sideValues = (mode?: "review" | "compaction") => valuesFor(Effect.runSync(conversation.document), { mode })
    const reviewer = makeReviewer({
      activeModel,
      prompts: () => {
        const { locations, attachments } = sources().reviewer
        const hostValues = sideValues("review")
        return {
          system: composePrompt("review", hostValues, locations, attachments).text,
          userTemplate: resolvePrompt("review.user", locations).text,
          hostValues
        }
      }
    })
    let titleTried = false
    const compactor = makeCompactor({
      settings: {
        auto: prepared.config.compaction?.auto ?? compactionDefaults.auto,
        threshold: prepared.config.compaction?.threshold ?? compactionDefaults.threshold,
        keepRecentTokens: prepared.config.compaction?.keepRecentTokens ?? compactionDefaults.keepRecentTokens
      },
      activeModel,
      prompts: () => {
        const { locations } = sources()
        const hostValues = sideValues("compaction")
        return {
          system: bindPlaceholders(resolvePrompt("compaction.system", locations).text, hostValues),
          userTemplate: resolvePrompt("compaction.user", locations).text,
          hostValues
        }
      }
    })
    return {
      nameSession: (timeoutMs) =>
        Effect.gen(function* () {
          if (titleTried || !needsTitle(yield* conversation.document)) return undefined
          titleTried = true
          return yield* nameSession({ activeModel, template: () => resolvePrompt("topic", sources().locations).text, hostValues: () => sideValues(), timeoutMs })
        }).pipe(Effect.provideService(Conversation, conversation)),
      services: store.pipe(
        Context.add(ActiveModel, activeModel),
        Context.add(Reviewer, reviewer),
        Context.add(Compactor, compactor),
        Context.add(Renderer, renderer),
        Context.add(Operator, operator),
        Context.add(Toolbox, toolbox),
        Context.add(Conversation, conversation)
      ),
      controls: makeSessionControls({
        compose,
        fenceFor,
        resolveModel: (ref) =>
          resolveModel({ requested: { ref, source: "/model" }, config: prepared.config, configFile: prepared.paths.configFile, env: process.env }).pipe(
            Effect.flatMap((entry) => checkCredentials(entry, process.env))
          ),
        makeClient: (entry) => makeModelClient(entry, process.env),
        prompts: { paths: prepared.paths, selection: prepared.prompts }
      }),
      get notes() {
        return sandboxNote === undefined ? notes : [...notes, sandboxNote]
      },
      placeholders,
      runningTasks: Effect.suspend(() =>
        background === undefined ? Effect.succeed(0) : Effect.map(background.list, (tasks) => tasks.filter((task) => task.state.status === "running").length)
      )
    }
  })
