/**
 * Carries out what `reduce` asks for: starts turns and commands on the current session, writes
 * lines, leaves. `handle` is the one way an event enters the app from a fiber (the input fiber, a
 * turn's end, a command's end): the state changes at once, then the effects run in order.
 */
import * as Context from "effect/Context"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { SessionHostShape } from "../../../layers/session-host.ts"
import type { Palette } from "../../terminal/colors.ts"
import { causeLine } from "../../text/error-text.ts"
import type { SlashCommand } from "../commands.ts"
import type { Dialogs } from "../dialogs.ts"
import { promptMark } from "../editor-view.ts"
import { redactText } from "../../secrets/redact.ts"
import { Redactor } from "../../secrets/redactor.ts"
import { appendHistory } from "../history.ts"
import type { ImageInput } from "../image-input.ts"
import type { TurnView } from "../turn-view.ts"
import { makeCommandContext } from "./command-context.ts"
import { forkInterruptibleDaemon, forkInterruptibleIn } from "./forks.ts"
import type { LiveRegion } from "./live.ts"
import { promptTurn, readStatus } from "./session-work.ts"
import { turnRunning, type AppEffect, type AppEvent } from "./state.ts"
import type { Store } from "./store.ts"
import type { Turns } from "./turns.ts"

export interface AppParts {
  readonly store: Store
  readonly live: LiveRegion
  readonly palette: Palette
  readonly host: SessionHostShape
  readonly view: TurnView
  readonly dialogs: Dialogs
  readonly turns: Turns
  readonly imageInput: ImageInput
  /** Completed with the exit code when the app leaves. */
  readonly finished: Deferred.Deferred<number>
  /** The app's scope: turns, titles and status reads run in it. */
  readonly scope: Scope.Scope
  readonly columns: () => number
  readonly disabledTools: ReadonlyArray<string>
}

export interface App {
  readonly handle: (event: AppEvent) => Effect.Effect<void>
  /** Reads the status line's facts again and redraws. */
  readonly refreshStatus: Effect.Effect<void>
  /** Every 100 ms: the spinner turns while a turn runs; every tenth, the background tasks are counted. */
  readonly tick: Effect.Effect<void>
}

const echoLines = (text: string, palette: Palette): Array<string> =>
  text.split("\n").map((line, index) => palette.bold(index === 0 ? `${promptMark}${line}` : `  ${line}`))

export const makeApp = (parts: AppParts): App => {
  const { store, live, palette, host, turns, scope } = parts
  const say = (lines: ReadonlyArray<string>) => Effect.sync(() => live.commit(lines))
  const redraw = Effect.sync(live.render)

  const handle = (event: AppEvent): Effect.Effect<void> =>
    Effect.suspend(() => {
      const effects = store.dispatch(event)
      return effects.length === 0 ? Effect.void : Effect.forEach(effects, perform, { discard: true })
    })
  const refreshStatus = Effect.suspend(() => readStatus(host)).pipe(
    Effect.flatMap((status) => Effect.sync(() => store.update({ _tag: "StatusRead", status }))),
    Effect.exit,
    Effect.zipRight(redraw)
  )
  const context = makeCommandContext({ ...parts, exit: handle({ _tag: "ExitAsked" }), refreshStatus })

  const refreshTasks = Effect.suspend(() => host.current().session.runningTasks).pipe(
    Effect.flatMap((running) =>
      Effect.sync(() => {
        const before = store.get()
        store.update({ _tag: "TasksCounted", running })
        if (store.get() !== before) live.render()
      })
    )
  )
  const tick = Effect.suspend(() => {
    store.update({ _tag: "Ticked" })
    const state = store.get()
    if (turnRunning(state)) live.render()
    return state.tick % 10 === 0 ? Effect.asVoid(Effect.forkIn(refreshTasks, scope)) : Effect.void
  })

  /** A command's work, its refusals said in one line. */
  const commandWork = (command: SlashCommand, args: string) =>
    command.run(args, context).pipe(
      Effect.catchAll((error) => say([palette.yellow(error.message)])),
      Effect.provide(host.current().session.services)
    )
  const afterTurn = Effect.suspend(() => handle({ _tag: "TurnEnded", at: Date.now() })).pipe(Effect.zipRight(redraw))

  const perform = (effect: AppEffect): Effect.Effect<void> => {
    switch (effect._tag) {
      case "Echo":
        return say(echoLines(effect.text, palette))
      case "Commit":
        return say(effect.lines)
      case "UnknownCommand":
        return say([palette.red(`unknown command /${effect.name} · /help lists them`)])
      case "CommandBroke":
        return say([palette.red(`crystal: /${effect.name} failed: ${effect.reason}; leaving`)])
      case "InputBroke":
        return say([palette.red(`crystal: reading the keyboard failed: ${effect.reason}; leaving`)])
      case "RecordHistory":
        // The file keeps what was typed with the session's secrets redacted: a pasted key never reaches disk.
        return Context.get(host.current().session.services, Redactor).secrets.pipe(
          Effect.map((secrets) => void appendHistory(effect.file, effect.workspace, redactText(secrets, effect.text)))
        )
      case "StartTurn":
        return turns.start(promptTurn(host, parts.view, scope, effect.input, refreshStatus), afterTurn)
      case "StartCommandTurn": {
        const work = commandWork(effect.command, effect.args)
        return turns.start(effect.command.promptTurn === true ? work : work.pipe(Effect.onInterrupt(() => say([palette.yellow("⏹ cancelled")]))), afterTurn)
      }
      case "StartCommand":
        // Detached, as a command always was: leaving never cuts one short halfway through a switch.
        return commandWork(effect.command, effect.args).pipe(
          Effect.exit,
          // A defect (a switch whose old session could not be reopened either, say) leaves no session
          // worth trusting: say so in one line and leave, rather than go on with one that cannot save.
          Effect.flatMap((exit) =>
            exit._tag === "Failure"
              ? handle({ _tag: "CommandBroke", name: effect.name, reason: causeLine(exit.cause) })
              : handle({ _tag: "CommandEnded", at: Date.now() }).pipe(Effect.zipRight(redraw))
          ),
          forkInterruptibleDaemon
        )
      case "CancelTurn":
        return turns.cancel
      case "Exit":
        return parts.imageInput.cancel.pipe(Effect.zipRight(turns.stop), Effect.zipRight(Deferred.succeed(parts.finished, 0)))
      case "Finish":
        return Deferred.succeed(parts.finished, effect.code)
      case "RefreshStatus":
        return forkInterruptibleIn(refreshStatus, scope)
      case "RenderLater":
        return forkInterruptibleIn(Effect.delay(redraw, `${effect.ms} millis`), scope)
    }
  }

  return { handle, refreshStatus, tick }
}
