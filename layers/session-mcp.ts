/**
 * The session's MCP servers (issue 15): the SDK and the rest of src/mcp load with the first
 * configured server, so a session without servers pays nothing for them at start-up (what spawns
 * config.json's servers early, src/mcp/early-servers.ts and the two modules it needs, is in the
 * start-up bundle either way). config.json's `mcpServers` start; a workspace's `.crystal/mcp.json` servers start
 * only when the session's one trust decision (layers/session-tools.ts) trusts their entry. A
 * server with `"sampling": true` may ask the session's model: the operator approves each request
 * (src/mcp/sampling.ts) and the model answers in a side request (src/engine/sampling.ts).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { ApprovalPolicyShape } from "../src/approval/approval-policy.ts"
import type { HookPipeline } from "../src/plugins/pipeline.ts"
import type { ProvidersShape } from "../src/providers/providers.ts"
import { isWithin } from "../src/approval/path-fence.ts"
import { prepareContainment } from "../src/bash/containment.ts"
import { DEFAULT_GRACE_MS } from "../src/bash/limits.ts"
import type { McpServersShape } from "../src/mcp/mcp-servers.ts"
import type { SamplingModel } from "../src/mcp/sampling.ts"
import { takeEarlyServers } from "../src/mcp/early-servers.ts"
import { planServer } from "../src/mcp/server-config.ts"
import { startServerProcess, type ServerProcess } from "../src/mcp/server-process.ts"
import type { WorkspaceServer, WorkspaceServers } from "../src/mcp/workspace-servers.ts"
import type { TrustDecision } from "../src/trust/trust-question.ts"
import type { QuestionAsker } from "../src/tools/questions.ts"
import type { RedactorShape } from "../src/secrets/redactor.ts"
import type { PreparedSession } from "./prepare.ts"

/** `<workspace>/.crystal/mcp.json`, read (and its module loaded) only when the file exists. */
export const readWorkspaceMcp = (prepared: PreparedSession): Effect.Effect<WorkspaceServers | undefined> => {
  const workspace = prepared.document.workspace
  if (!fs.existsSync(path.join(workspace, ".crystal", "mcp.json"))) return Effect.succeed(undefined)
  return Effect.promise(() => import("../src/mcp/workspace-servers.ts")).pipe(
    Effect.map((module) => module.readWorkspaceServers(workspace, new Set(Object.keys(prepared.config.mcpServers ?? {}))))
  )
}

/** The workspace's servers this session's trust decision lets start. */
export const trustedWorkspaceServers = (workspace: WorkspaceServers | undefined, trust: TrustDecision): ReadonlyArray<WorkspaceServer> => {
  if (workspace === undefined) return []
  const key = (entry: TrustDecision["trusted"][number]) => JSON.stringify([entry.kind, entry.workspace, entry.name, entry.hash])
  const trusted = new Set(trust.trusted.map(key))
  return workspace.servers.filter((server) => trusted.has(key(server.trust)))
}

/**
 * The session's active model as src/mcp/sampling.ts asks it: the side request of
 * src/engine/sampling.ts (`engine`, loaded with the first server allowed to sample), cancelled
 * when the server cancels its request.
 */
export const samplingModel = (
  engine: typeof import("../src/engine/sampling.ts"),
  deps: { readonly providers: Pick<ProvidersShape, "current">; readonly hooks: HookPipeline | undefined; readonly redactor: Pick<RedactorShape, "secrets"> }
): SamplingModel => ({
  current: () => deps.providers.current().entry.ref,
  complete: async (prompt, signal) => {
    const answered = await Effect.runPromise(
      Effect.either(engine.sampleActiveModel({ activeModel: deps.providers, hooks: deps.hooks, redactor: deps.redactor }, prompt)),
      { signal }
    )
    if (answered._tag === "Left") throw new Error(answered.left.message)
    return answered.right
  }
})

/** Starts the configured servers in the session's scope; undefined when there are none. */
export const startMcpServers = (
  prepared: PreparedSession,
  deps: {
    readonly policy: ApprovalPolicyShape
    /** The session's secrets: the servers' credentials join them; what the servers say is redacted of them. */
    readonly redactor: RedactorShape
    readonly env: Readonly<Record<string, string | undefined>>
    readonly baseEnv: Readonly<Record<string, string>>
    /** The workspace's trusted servers (trustedWorkspaceServers): they come after config.json's. */
    readonly workspaceServers: ReadonlyArray<WorkspaceServer>
    /** Who answers a server's elicitation (headless: nobody, so it is declined with a note). */
    readonly operator: QuestionAsker
    readonly note: (text: string) => void
    /** The session's active model, which a server's sampling request goes to once approved. */
    readonly providers: Pick<ProvidersShape, "current">
    /** The plugins' hooks (undefined when none): a sampling request passes them like a side question. */
    readonly hooks: HookPipeline | undefined
  }
): Effect.Effect<McpServersShape | undefined, never, Scope.Scope> =>
  Object.keys(prepared.config.mcpServers ?? {}).length > 0 || deps.workspaceServers.length > 0
    ? Effect.gen(function* () {
        const workspace = prepared.document.workspace
        // A workspace's ${env:…} reads the operator's environment too, but only into a server the operator trusted.
        const plans = [
          ...Object.entries(prepared.config.mcpServers ?? {}).map(([name, settings]) =>
            planServer(name, settings, { workspace, env: deps.env, baseEnv: deps.baseEnv })
          ),
          ...deps.workspaceServers.map((server) =>
            planServer(server.name, server.settings, { workspace, env: deps.env, baseEnv: deps.baseEnv, source: "workspace" })
          )
        ]
        // What ${env:…} put into a server's env or headers is redacted like a provider key (README "Secrets").
        yield* deps.redactor.add(plans.flatMap((plan) => plan.secrets))
        // config.json's servers were spawned as Crystal started (src/mcp/early-servers.ts): taken
        // over when the plan is exactly what was spawned, spawned now otherwise; either way before
        // the SDK loads, so that a server's start and the SDK's evaluation overlap.
        yield* prepareContainment(prepared.paths.home)
        const stdio = plans.flatMap((plan) => (plan.enabled && typeof plan.endpoint !== "string" && plan.endpoint.kind === "stdio" ? [{ name: plan.name, command: plan.endpoint }] : []))
        const early = takeEarlyServers(stdio.map((server) => server.command), DEFAULT_GRACE_MS)
        const spawned = new Map<string, Promise<ServerProcess>>(
          stdio.map((server, i) => [server.name, (async () => early[i] ?? startServerProcess(server.command))()])
        )
        // Whatever happens to the session before a transport takes them over, they die with it.
        yield* Effect.addFinalizer(() =>
          Effect.promise(() => Promise.all([...spawned.values()].map((process) => process.then((p) => p.kill(DEFAULT_GRACE_MS), () => undefined))))
        )
        const [servers, elicitation, sampling] = yield* Effect.promise(() =>
          Promise.all([import("../src/mcp/mcp-servers.ts"), import("../src/mcp/elicitation.ts"), import("../src/mcp/sampling.ts")])
        )
        // The model side is loaded with the first server allowed to sample.
        const sampler = plans.some((plan) => plan.enabled && plan.sampling) ? yield* Effect.promise(() => import("../src/engine/sampling.ts")) : undefined
        // Roots: the workspace and the operator's /access grants (not Crystal's own spill and skill folders).
        const roots = () => {
          const fence = Effect.runSync(deps.policy.fence)
          return [fence.workspace, ...fence.grants.map((grant) => grant.root).filter((root) => !isWithin(prepared.paths.home, root) && !isWithin(fence.workspace, root))]
        }
        // The servers' notes quote what a server said (an elicitation's message, an error), which may hold a secret it read.
        const note = (text: string) => deps.note(Effect.runSync(deps.redactor.redact(text)))
        return yield* servers.makeMcpServers({
          plans,
          roots,
          spawned,
          redactor: deps.redactor,
          elicit: (server, message, schema) => elicitation.askElicitation(deps.operator, { server, message, schema }, note),
          sample: sampler === undefined ? undefined : (server, params, signal) => sampling.answerSampling({ asker: deps.operator, model: samplingModel(sampler, deps), note }, server, params, signal),
          note
        })
      })
    : Effect.sync(() => void takeEarlyServers([], DEFAULT_GRACE_MS))
