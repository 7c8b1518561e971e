/**
 * One ACP session: a Crystal session (new, or a saved one for session/load) in a scope of its own,
 * its events going to the client as session/update and its approvals as
 * session/request_permission. A prompt runs one turn in a fiber that session/cancel interrupts:
 * the model request is aborted, running tools and their processes stop, a pending permission
 * request is cancelled, and the prompt answers `cancelled`. The ACP session id is Crystal's.
 */
import * as fs from "node:fs"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Fiber from "effect/Fiber"
import * as Scope from "effect/Scope"
import * as Cause from "effect/Cause"
import type { ContentBlock, McpServer, RequestPermissionRequest, RequestPermissionResponse, SessionModeState, SessionUpdate, StopReason } from "@agentclientprotocol/sdk"
import { prepareSession, type PreparedSession, type SessionRequest } from "../../layers/prepare.ts"
import { startSession, type Session } from "../../layers/session.ts"
import { Conversation } from "../engine/conversation.ts"
import { runTurn } from "../engine/turn.ts"
import * as Context from "effect/Context"
import { withClientServers } from "./mcp-servers.ts"
import { modeSettings, sessionModes, currentModeId } from "./modes.ts"
import { makeAcpOperator } from "./operator.ts"
import { promptInput } from "./prompt-input.ts"
import { makeAcpRenderer, RunningCalls } from "./renderer.ts"
import { replayUpdates } from "./replay.ts"
import type { EditorFiles } from "../tools/tool.ts"
import { Redactor } from "../secrets/redactor.ts"
import { causeLine } from "../text/error-text.ts"

/** What a session needs of the connection. */
export interface AcpPeer {
  /** One session/update; resolves once it is written (never rejects). */
  readonly update: (sessionId: string, update: SessionUpdate) => Promise<void>
  readonly requestPermission: (request: RequestPermissionRequest, signal: AbortSignal) => Promise<RequestPermissionResponse>
  /** A line for the operator on stderr (what an editor keeps in its agent log). */
  readonly log: (text: string) => void
  /** The client's fs methods for this session, those it offers (initialize's clientCapabilities.fs). */
  readonly editorFiles: (sessionId: string) => EditorFiles | undefined
}

export interface OpenRequest {
  readonly cwd: string
  readonly mcpServers: ReadonlyArray<McpServer>
  /** session/load: the saved session to go on with. */
  readonly resume?: string | undefined
}

/** A request the client made that this session refuses; its message is the client's to show. */
export class AcpRefusal extends Error {}

const sessionRequest = (resume: string | undefined): SessionRequest => ({
  model: undefined,
  mode: undefined,
  approval: undefined,
  disableTool: [],
  resume,
  continue: false,
  promptSet: undefined,
  promptAttachments: "on",
  promptAttachment: []
})

/** session/load runs a session in its own workspace only: a client in another folder is told so, not moved. */
const sameWorkspace = (document: { readonly id: string; readonly workspace: string }, cwd: string): Effect.Effect<void, Error> =>
  Effect.try({ try: () => fs.realpathSync(cwd), catch: () => new Error(`session/load: cwd ${cwd} is not a readable directory`) }).pipe(
    Effect.flatMap((here) =>
      here === document.workspace ? Effect.void : Effect.fail(new Error(`session/load: session ${document.id} belongs to ${document.workspace}, not ${here}; open it from there`))
    )
  )

export class AcpSession {
  private turn: Fiber.RuntimeFiber<StopReason, unknown> | undefined
  /** Set synchronously as a prompt is accepted: `turn` is only set after an await. */
  private busy = false
  /** A session/cancel that came while the prompt was accepted but its turn not yet started. */
  private cancelledEarly = false

  readonly prepared: PreparedSession
  private readonly session: Session
  private readonly scope: Scope.CloseableScope
  private readonly peer: AcpPeer
  private readonly calls: RunningCalls

  private constructor(prepared: PreparedSession, session: Session, scope: Scope.CloseableScope, peer: AcpPeer, calls: RunningCalls) {
    this.calls = calls
    this.prepared = prepared
    this.session = session
    this.scope = scope
    this.peer = peer
  }

  get id(): string {
    return this.prepared.document.id
  }

  static open(request: OpenRequest, peer: AcpPeer, env: Readonly<Record<string, string | undefined>>): Promise<AcpSession> {
    return Effect.runPromise(
      Effect.gen(function* () {
        const found = yield* prepareSession(sessionRequest(request.resume), request.cwd, env)
        if (request.resume !== undefined) yield* sameWorkspace(found.document, request.cwd)
        const prepared = { ...found, config: yield* withClientServers(found.config, request.mcpServers) }
        const sessionId = prepared.document.id
        const send = (update: SessionUpdate) => Effect.promise(() => peer.update(sessionId, update))
        const calls = new RunningCalls()
        const workspace = prepared.document.workspace
        const editorFiles = peer.editorFiles(sessionId)
        const renderer = makeAcpRenderer({ workspace, send, calls, log: peer.log, editorRead: editorFiles?.read })
        const operator = makeAcpOperator({ sessionId, workspace, requestPermission: peer.requestPermission, log: peer.log })
        const scope = yield* Scope.make()
        const session = yield* startSession(prepared, { env, renderer, operator, editorFiles }).pipe(
          Scope.extend(scope),
          Effect.onError((cause) => Scope.close(scope, Exit.failCause(cause)))
        )
        for (const note of [...prepared.notes, ...session.notes]) peer.log(note)
        return new AcpSession(prepared, session, scope, peer, calls)
      }).pipe(Effect.mapError((error) => new AcpRefusal(request.resume === undefined ? error.message : error.message.replace(/^--resume: /, "session/load: "))))
    )
  }

  private document = () => Effect.runPromise(Context.get(this.session.services, Conversation).document)

  async modes(): Promise<SessionModeState> {
    return sessionModes(await this.document())
  }

  /** session/load: the transcript so far, sent before the load is answered. */
  async replay(): Promise<void> {
    for (const update of replayUpdates(await this.document())) await this.peer.update(this.id, update)
  }

  async prompt(blocks: ReadonlyArray<ContentBlock>): Promise<StopReason> {
    if (this.busy) throw new AcpRefusal("a prompt is already running in this session; cancel it first")
    this.busy = true
    this.cancelledEarly = false
    try {
      return await this.runPrompt(blocks)
    } finally {
      this.busy = false
    }
  }

  private async runPrompt(blocks: ReadonlyArray<ContentBlock>): Promise<StopReason> {
    const before = currentModeId(await this.document())
    if (this.cancelledEarly) return "cancelled"
    const settings = { maxSteps: this.prepared.maxSteps, maxRetryWaitSeconds: this.prepared.config.retry?.maxWaitSeconds }
    const turn = Effect.gen(function* () {
      const input = yield* promptInput(blocks)
      const outcome = yield* runTurn(input, settings)
      return outcome._tag === "StepLimit" ? ("max_turn_requests" as const) : ("end_turn" as const)
    }).pipe(Effect.provide(this.session.services))
    const fiber = Effect.runFork(turn)
    this.turn = fiber
    const exit = await Effect.runPromise(Fiber.await(fiber))
    this.turn = undefined
    const after = currentModeId(await this.document())
    if (after !== before) await this.peer.update(this.id, { sessionUpdate: "current_mode_update", currentModeId: after })
    // A call the turn was running when it ended has no result to show: it ends as failed, never left spinning.
    for (const toolCallId of this.calls.drain()) {
      await this.peer.update(this.id, { sessionUpdate: "tool_call_update", toolCallId, status: "failed", content: [{ type: "content", content: { type: "text", text: "cancelled" } }] })
    }
    if (Exit.isSuccess(exit)) return exit.value
    if (Cause.isInterruptedOnly(exit.cause)) return "cancelled"
    const failure = Cause.failureOption(exit.cause)
    const message = failure._tag === "Some" && failure.value instanceof Error ? failure.value.message : causeLine(exit.cause)
    // A provider's error message can quote a key: said with the session's secrets redacted, as `crystal run` says it.
    throw new AcpRefusal(await Effect.runPromise(Context.get(this.session.services, Redactor).redact(message)))
  }

  /** session/cancel: ends the running turn (if any) and waits until it has stopped. */
  async cancel(): Promise<void> {
    const turn = this.turn
    if (turn !== undefined) await Effect.runPromise(Fiber.interrupt(turn))
    else if (this.busy) this.cancelledEarly = true
  }

  async setMode(modeId: string): Promise<void> {
    const settings = modeSettings(modeId)
    if (settings === undefined) throw new AcpRefusal(`session/set_mode: unknown mode '${modeId}' (modes: ${(await this.modes()).availableModes.map((mode) => mode.id).join(", ")})`)
    const controls = this.session.controls
    await Effect.runPromise(
      Effect.gen(function* () {
        yield* controls.setMode(settings.mode)
        if (settings.approval !== undefined) yield* controls.setApproval(settings.approval)
      }).pipe(Effect.provide(this.session.services))
    )
  }

  /** Ends the turn, then the session: saved, its lock released, its processes and servers stopped. */
  async close(): Promise<void> {
    await this.cancel()
    await Effect.runPromise(Scope.close(this.scope, Exit.void))
  }
}
