/**
 * The interactive terminal: the input editor, the streamed turn, dialogs, slash commands and the
 * status line, on one session. This file only wires the parts in src/tui/app/ (docs/terminal.md,
 * "How the app is built"): one state record changed by a pure `reduce`, a pure frame of it, a pure
 * key map, the turn fiber in turns.ts, and one input fiber reading an inbox that everything from
 * outside Effect (the terminal's bytes, a dialog's Ctrl+C) is offered to.
 */
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import * as Queue from "effect/Queue"
import type * as Scope from "effect/Scope"
import { startupComplete } from "../../layers/runtime.ts"
import { openSessionHost } from "../../layers/session-host.ts"
import type { PreparedSession } from "../../layers/prepare.ts"
import type { SessionFlags } from "../cli/flags.ts"
import type { SessionLocked } from "../session/lock.ts"
import { colorWanted, loadPalette } from "../terminal/colors.ts"
import { greeting } from "./app/announce.ts"
import { committing } from "./app/command-context.ts"
import { readInput, superviseInput, type AppInput } from "./app/input.ts"
import { makeLiveRegion } from "./app/live.ts"
import { makeApp } from "./app/perform.ts"
import { firstStatus, initialState } from "./app/state.ts"
import { makeStore } from "./app/store.ts"
import { dialogHost, turnSurface } from "./app/surfaces.ts"
import { makeTurns } from "./app/turns.ts"
import { workspaceInputs } from "./app/workspace.ts"
import { makeDialogs } from "./dialogs.ts"
import { makeImageInput } from "./image-input.ts"
import { recap } from "./recap.ts"
import { openTerminal } from "./terminal.ts"
import { makeTurnView } from "./turn-view.ts"

export interface AppOptions {
  /** The process's flags and environment, for the sessions /clear, /resume and /fork start. */
  readonly flags: SessionFlags
  readonly env: Readonly<Record<string, string | undefined>>
}

export const runApp = (prepared: PreparedSession, options: AppOptions): Effect.Effect<number, SessionLocked, Scope.Scope> =>
  Effect.gen(function* () {
    const terminal = yield* Effect.acquireRelease(Effect.sync(openTerminal), (opened) => Effect.sync(opened.restore))
    const palette = yield* Effect.promise(() => loadPalette(colorWanted(terminal.interactive)))
    const scope = yield* Effect.scope
    const inbox = yield* Queue.unbounded<AppInput>()
    // From the start: keys typed while the session starts (after a trust question, say) wait here for the input fiber.
    terminal.onInput((data) => Queue.unsafeOffer(inbox, { _tag: "Data", data }))
    const store = makeStore(initialState(workspaceInputs(prepared.paths.home, prepared.document.workspace), firstStatus(prepared)))
    const imageInput = yield* makeImageInput(inbox)
    const live = makeLiveRegion(terminal, palette, store.get, imageInput.status)
    // Runs before the terminal's own release (finalizers run in reverse): no live region is left behind.
    yield* Effect.addFinalizer(() => Effect.sync(live.close))
    const turns = yield* makeTurns

    const view = makeTurnView(turnSurface(store, live, terminal), palette)
    const dialogs = makeDialogs(dialogHost(store, live, terminal, inbox), palette)
    const host = yield* openSessionHost(prepared, { flags: options.flags, env: options.env, renderer: view, operator: dialogs })
    const finished = yield* Deferred.make<number>()
    const app = makeApp({ store, live, palette, host, view, dialogs, turns, imageInput, finished, scope, columns: terminal.columns, disabledTools: prepared.disabledTools })

    const input = readInput(inbox, { store, live, palette, imageInput, handle: app.handle, services: () => host.current().session.services })
    yield* Effect.forkScoped(superviseInput(input, app.handle))
    terminal.onResize(live.render)

    live.commit(greeting(host.current(), palette, store.get().commands.notes))
    if (prepared.resumed) committing(live)(host.current().session, recap(prepared.document.items, palette, terminal.columns()))
    yield* app.refreshStatus
    startupComplete()
    const ticker = yield* Effect.forkScoped(Effect.forever(Effect.delay(app.tick, "100 millis")))
    // SIGTERM (or SIGINT from outside) interrupts this wait: the turn is interrupted too, so it saves what was complete.
    // The app is marked as leaving first (ExitAsked stops the turn itself), or the interrupted turn's end would start a queued prompt.
    const leave = Fiber.interrupt(ticker).pipe(Effect.zipRight(app.handle({ _tag: "ExitAsked" })), Effect.zipRight(turns.stop))
    const code = yield* Deferred.await(finished).pipe(Effect.ensuring(leave))
    live.close()
    terminal.restore()
    terminal.write(palette.dim(`session saved · resume it with: crystal --resume ${host.current().prepared.document.id}\n`))
    return code
  })
