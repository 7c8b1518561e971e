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
import type { McpServersShape } from "../src/mcp/mcp-servers.ts"
import type { PreparedSession } from "./prepare.ts"

export const hasMcpServers = (prepared: PreparedSession): boolean => Object.keys(prepared.config.mcpServers ?? {}).length > 0

/** Starts the configured servers in the session's scope; undefined when there are none. */
export const startMcpServers = (
  prepared: PreparedSession,
  deps: { readonly policy: ApprovalPolicyShape; readonly env: Readonly<Record<string, string | undefined>>; readonly baseEnv: Readonly<Record<string, string>> }
): Effect.Effect<McpServersShape | undefined, never, Scope.Scope> =>
  hasMcpServers(prepared)
    ? Effect.gen(function* () {
        const [servers, config] = yield* Effect.promise(() => Promise.all([import("../src/mcp/mcp-servers.ts"), import("../src/mcp/server-config.ts")]))
        const workspace = prepared.document.workspace
        const plans = Object.entries(prepared.config.mcpServers ?? {}).map(([name, settings]) =>
          config.planServer(name, settings, { workspace, env: deps.env, baseEnv: deps.baseEnv })
        )
        // Roots: the workspace and the operator's /access grants (not Crystal's own spill and skill folders).
        const roots = () => {
          const fence = Effect.runSync(deps.policy.fence)
          return [fence.workspace, ...fence.grants.map((grant) => grant.root).filter((root) => !isWithin(prepared.paths.home, root) && !isWithin(fence.workspace, root))]
        }
        return yield* servers.makeMcpServers({ plans, roots })
      })
    : Effect.succeed(undefined)
