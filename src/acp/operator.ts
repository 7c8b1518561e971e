/**
 * The Operator of an ACP session: every approval Crystal would ask goes to the client's
 * `session/request_permission` (allow once, allow for this session, reject), children's too,
 * named by their agent path. Anything but a selected allow option is a denial: an error, a
 * `cancelled` outcome, an unknown option, a closed connection. When the turn is cancelled while
 * the client is deciding, the request is cancelled and the turn does not wait for its answer.
 * Questions and yes/no confirmations have no ACP request: they get their safe default, as in
 * `crystal run`.
 */
import * as Effect from "effect/Effect"
import type { PermissionOption, RequestPermissionRequest, RequestPermissionResponse } from "@agentclientprotocol/sdk"
import { headlessOperator } from "../../layers/headless.ts"
import { agentPathLabel } from "../agents/definition.ts"
import type { ApprovalAnswer, ApprovalRequest, OperatorShape } from "../engine/operator.ts"
import { agentKey, toolCallIdOf } from "./renderer.ts"
import { viewToolCall } from "./tool-calls.ts"
import { messageOf } from "../text/error-text.ts"

export const permissionOptions: ReadonlyArray<PermissionOption> = [
  { optionId: "allow-once", name: "Allow once", kind: "allow_once" },
  { optionId: "allow-always", name: "Allow for this session", kind: "allow_always" },
  { optionId: "reject", name: "Reject", kind: "reject_once" }
]

export interface AcpOperatorDeps {
  readonly sessionId: string
  readonly workspace: string
  /** Resolves with the client's answer; `signal` aborts when the turn is cancelled. */
  readonly requestPermission: (request: RequestPermissionRequest, signal: AbortSignal) => Promise<RequestPermissionResponse>
  readonly log: (text: string) => void
}

/** Only a selected allow option allows. */
export const answerOf = (response: RequestPermissionResponse): ApprovalAnswer => {
  if (response.outcome.outcome !== "selected") return { _tag: "Deny", message: "the editor cancelled the permission request" }
  switch (response.outcome.optionId) {
    case "allow-once":
      return { _tag: "AllowOnce" }
    case "allow-always":
      return { _tag: "AllowSession" }
    default:
      return { _tag: "Deny" }
  }
}

export const permissionRequest = (deps: Pick<AcpOperatorDeps, "sessionId" | "workspace">, request: ApprovalRequest): RequestPermissionRequest => {
  const view = viewToolCall(request.toolName, request.arguments, deps.workspace)
  const toolCallId = request.callId === undefined ? undefined : toolCallIdOf(agentKey(request.agent), request.callId)
  const agent = request.agent === undefined || request.agent.length === 0 ? "" : `${agentPathLabel(request.agent)}: `
  const c = request.classification
  return {
    sessionId: deps.sessionId,
    toolCall: {
      toolCallId: toolCallId ?? `approval-${Date.now()}`,
      title: `${agent}${view.title}`,
      kind: view.kind,
      status: "pending",
      locations: [...view.locations],
      rawInput: request.arguments,
      content: [{ type: "content", content: { type: "text", text: `${agent}${c.summary} (risk ${c.risk}, ${c.authority}, ${c.scope}; approval mode ${request.mode})` } }]
    },
    options: [...permissionOptions]
  }
}

export const makeAcpOperator = (deps: AcpOperatorDeps): OperatorShape => ({
  ...headlessOperator,
  approve: (request) =>
    Effect.tryPromise({
      try: (signal) => deps.requestPermission(permissionRequest(deps, request), signal),
      catch: (error) => error
    }).pipe(
      Effect.map(answerOf),
      // Fails closed: a client that cannot answer has not allowed anything.
      Effect.catchAll((error) =>
        Effect.sync((): ApprovalAnswer => {
          deps.log(`the editor did not answer a permission request (${messageOf(error)}): denied`)
          return { _tag: "Deny", message: "the editor did not answer the permission request" }
        })
      )
    )
})
