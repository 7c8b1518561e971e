/**
 * What the app runs on the session that is current when it starts: a prompt's turn (and the
 * session's title after its first answer), and the status line's facts.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { Session } from "../../../layers/session.ts"
import type { SessionHostShape } from "../../../layers/session-host.ts"
import { Conversation } from "../../engine/conversation.ts"
import { sessionCost } from "../../providers/cost.ts"
import { Renderer } from "../../engine/renderer.ts"
import { runTurn, type TurnSettings, type UserInput } from "../../engine/turn.ts"
import { planInstruction } from "../../plans/instruction.ts"
import { selectPromptSet } from "../../prompts/sets.ts"
import { Providers } from "../../providers/providers.ts"
import { saveLateTitle } from "../../session/late-title.ts"
import { SessionStore } from "../../session/store.ts"
import type { StatusInfo } from "../status-line.ts"
import type { TurnView } from "../turn-view.ts"

type Host = Pick<SessionHostShape, "current">

/**
 * Names the session in the background: it never delays the input, and a failure leaves the
 * session untitled. A switch meanwhile closes the session's scope, and with it its background
 * saves, so a title that arrives after one is written here (under the session's lock). It runs in
 * `titles` (the app's scope) for that reason: a switch does not cut it short. `done` runs after it
 * either way: the title request's cost changes the status line.
 */
const nameInBackground = (host: Host, running: Session, id: string, titles: Scope.Scope, done: Effect.Effect<void>) =>
  running.nameSession().pipe(
    Effect.flatMap((title) => {
      const now = host.current()
      if (title === undefined || now.session === running) return Effect.void
      // Resumed again in this process: the open conversation is the one to hold the title.
      if (now.prepared.document.id === id) {
        const target = Context.get(now.session.services, Conversation)
        return target.update((doc) => (doc.title === undefined ? { ...doc, title } : doc)).pipe(
          Effect.zipRight(target.save),
          Effect.zipRight(target.flush)
        )
      }
      // Closed: never write from the stale in-memory copy; the file as it is now, under its lock,
      // through the current session's store (which redacts what it writes).
      return saveLateTitle(Context.get(now.session.services, SessionStore), id, title)
    }),
    Effect.ignore,
    Effect.ensuring(done),
    Effect.forkIn(titles)
  )

/**
 * After propose_plan's "Start working on it" (docs/plans.md): work mode, and a Work turn whose
 * instruction is the plan as approved, in the same fiber (Ctrl+C cancels it like any turn).
 */
const workOnApprovedPlan = (session: Session, settings: TurnSettings) =>
  Effect.gen(function* () {
    const approved = yield* session.plan.takeApproved
    if (approved === undefined) return
    yield* session.controls.setMode("work")
    yield* (yield* Renderer).note(`work mode: carrying out the plan (${approved.path})`)
    yield* runTurn(planInstruction(approved), settings)
  })

/** A prompt's turn; its failure and its cancellation are told by the view. */
export const promptTurn = (host: Host, view: TurnView, titles: Scope.Scope, input: UserInput, titled: Effect.Effect<void>): Effect.Effect<void> => {
  const { session, prepared } = host.current()
  const settings: TurnSettings = { maxSteps: prepared.maxSteps, maxRetryWaitSeconds: prepared.config.retry?.maxWaitSeconds }
  return runTurn(input, settings).pipe(
    Effect.tap((outcome) => (outcome._tag === "Answered" ? nameInBackground(host, session, prepared.document.id, titles, titled) : Effect.void)),
    Effect.tap(() => workOnApprovedPlan(session, settings)),
    // Through the session's renderer, which redacts its secrets: a provider's error can quote a key.
    Effect.catchAll((error) => Effect.flatMap(Renderer, (renderer) => renderer.failed(error.message))),
    Effect.onInterrupt(() => Effect.sync(view.interrupted)),
    Effect.asVoid,
    Effect.provide(session.services)
  )
}

/** Mode, approval, model, prompt set, context use, session cost and background tasks, as the session has them now. */
export const readStatus = (host: Host): Effect.Effect<StatusInfo> => {
  const { session, prepared } = host.current()
  return Effect.gen(function* () {
    const doc = yield* (yield* Conversation).document
    const providers = yield* Providers
    const entry = providers.current().entry
    const spent = sessionCost(doc, providers.price)
    const lastUsage = [...doc.items].reverse().find((item) => item._tag === "assistant" && item.usage !== undefined)
    const usage = lastUsage?._tag === "assistant" ? lastUsage.usage : undefined
    return {
      mode: doc.mode,
      approval: doc.approval,
      model: entry.ref,
      promptSet: selectPromptSet(prepared.paths.home, prepared.prompts.promptSet).name,
      contextUsed: usage === undefined ? 0 : usage.inputTokens + usage.outputTokens,
      contextWindow: entry.capabilities.contextWindow,
      sessionTokens: { input: spent.usage.inputTokens, output: spent.usage.outputTokens, usd: spent.usd },
      runningTasks: yield* session.runningTasks
    }
  }).pipe(Effect.provide(session.services))
}
