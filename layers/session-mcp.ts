/**
 * The session's MCP servers (issue 15): nothing is imported when config.json names none (the SDK
 * and src/mcp load with the first configured server), so a session without servers pays nothing
 * at start-up. Only config.json's `mcpServers` are started: a workspace's `.crystal/mcp.json`
 * waits for the trust step of the external-tools issue and is not read at all until then.
 */
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { ApprovalPolicyShape } from "../src/approval/approval-policy.ts"
import { isWithin } from "../src/approval/path-fence.ts"
import { DEFAULT_GRACE_MS } from "../src/bash/limits.ts"
import type { McpServersShape } from "../src/mcp/mcp-servers.ts"
import type { ServerProcess } from "../src/mcp/server-process.ts"
import type { PreparedSession } from "./prepare.ts"

export const hasMcpServers = (prepared: PreparedSession): boolean => Object.keys(prepared.config.mcpServers ?? {}).length > 0

/** Starts the configured servers in the session's scope; undefined when there are none. */
export const startMcpServers = (
  prepared: PreparedSession,
  deps: { readonly policy: ApprovalPolicyShape; readonly env: Readonly<Record<string, string | undefined>>; readonly baseEnv: Readonly<Record<string, string>> }
): Effect.Effect<McpServersShape | undefined, never, Scope.Scope> =>
  hasMcpServers(prepared)
    ? Effect.gen(function* () {
        // Stdio servers are spawned before the SDK loads: a server's start (a node or npx process)
        // and the SDK's evaluation then overlap instead of adding up.
        const [config, processes] = yield* Effect.promise(() => Promise.all([import("../src/mcp/server-config.ts"), import("../src/mcp/server-process.ts")]))
        const workspace = prepared.document.workspace
        const plans = Object.entries(prepared.config.mcpServers ?? {}).map(([name, settings]) =>
          config.planServer(name, settings, { workspace, env: deps.env, baseEnv: deps.baseEnv })
        )
        const spawned = new Map<string, Promise<ServerProcess>>()
        for (const plan of plans) {
          if (plan.enabled && typeof plan.endpoint !== "string" && plan.endpoint.kind === "stdio") spawned.set(plan.name, processes.spawnServerProcess(plan.endpoint))
        }
        // Whatever happens to the session before a transport takes them over, they die with it.
        yield* Effect.addFinalizer(() =>
          Effect.promise(() => Promise.all([...spawned.values()].map((process) => process.then((p) => p.kill(DEFAULT_GRACE_MS), () => undefined))))
        )
        const servers = yield* Effect.promise(() => import("../src/mcp/mcp-servers.ts"))
        // Roots: the workspace and the operator's /access grants (not Crystal's own spill and skill folders).
        const roots = () => {
          const fence = Effect.runSync(deps.policy.fence)
          return [fence.workspace, ...fence.grants.map((grant) => grant.root).filter((root) => !isWithin(prepared.paths.home, root) && !isWithin(fence.workspace, root))]
        }
        return yield* servers.makeMcpServers({ plans, roots, spawned })
      })
    : Effect.succeed(undefined)
