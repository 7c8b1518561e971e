/**
 * The interactive terminal: the input editor, the streamed turn, dialogs, slash commands and the
 * status line, on one session. Keys are read raw (see keys.ts); turns run as fibers so that
 * Ctrl+C can interrupt one while the editor stays usable (a prompt sent meanwhile is queued).
 */
import * as Cause from "effect/Cause"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Fiber from "effect/Fiber"
import type * as Scope from "effect/Scope"
import { startupComplete } from "../../layers/runtime.ts"
import { openSessionHost, type ActiveSession } from "../../layers/session-host.ts"
import type { Session, SessionServices } from "../../layers/session.ts"
import type { SessionFlags } from "../cli/flags.ts"
import type { PreparedSession } from "../../layers/prepare.ts"
import type { SessionLocked } from "../session/lock.ts"
import { Providers } from "../providers/providers.ts"
import { Conversation } from "../engine/conversation.ts"
import { runTurn, type UserInput } from "../engine/turn.ts"
import { saveLateTitle } from "../session/late-title.ts"
import { selectPromptSet } from "../prompts/sets.ts"
import { commandEntries, findCommand, parseCommandLine, type CommandContext, type SwitchKind } from "./commands.ts"
import { acceptCompletion, findCompletion, listWorkspaceFiles, moveSelection, type Completion } from "./completion.ts"
import { makeDialogs } from "./dialogs.ts"
import { editorKey, editorWith, emptyEditor, type EditorState } from "./editor-state.ts"
import { layoutEditor, promptMark } from "./editor-view.ts"
import { appendHistory, historyFile, historyNext, historyPrevious, historyRecord, loadHistory, makeHistory } from "./history.ts"
import { makeImageInput } from "./image-input.ts"
import { decodeKeys, type Key } from "./keys.ts"
import { recap } from "./recap.ts"
import { Screen, type LiveFrame } from "./screen.ts"
import { statusLine, type StatusInfo } from "./status-line.ts"
import { openTerminal } from "./terminal.ts"
import { makeTurnView } from "./turn-view.ts"
import { clipText, wrapLine } from "./width.ts"
import { colorWanted, loadPalette } from "../terminal/colors.ts"

const spinner = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
const exitWindowMs = 2000

export interface AppOptions {
  /** The process's flags and environment, for the sessions /clear, /resume and /fork start. */
  readonly flags: SessionFlags
  readonly env: Readonly<Record<string, string | undefined>>
}

export const runApp = (prepared: PreparedSession, options: AppOptions): Effect.Effect<number, SessionLocked, Scope.Scope> =>
  Effect.gen(function* () {
    const terminal = yield* Effect.acquireRelease(Effect.sync(openTerminal), (opened) => Effect.sync(opened.restore))
    const palette = yield* Effect.promise(() => loadPalette(colorWanted(terminal.interactive)))
    const screen = new Screen(terminal)
    // Runs before the terminal's own release (finalizers run in reverse): no live region is left behind.
    yield* Effect.addFinalizer(() => Effect.sync(() => screen.clear()))
    /** Changes with /cd and /space, and with it the prompt history and the @file list. */
    let workspace = prepared.document.workspace

    // What the live region shows.
    let editor: EditorState = emptyEditor
    let completion: Completion | undefined
    let completionDismissed: string | undefined
    let partial = ""
    let activity: string | undefined
    let hint: { text: string; until: number } | undefined
    let dialogOpen = false
    let turn: Fiber.RuntimeFiber<unknown, unknown> | undefined
    let commandRunning = false
    let turnStarted = 0
    let tick = 0
    const queue: Array<UserInput> = []
    let lastCtrlC = 0
    let files: ReadonlyArray<string> | undefined
    let historyPath = historyFile(prepared.paths.home, workspace)
    let history = makeHistory(loadHistory(historyPath))
    let status: StatusInfo = {
      mode: prepared.document.mode,
      approval: prepared.document.approval,
      model: prepared.model.ref,
      promptSet: "default",
      contextUsed: 0,
      contextWindow: prepared.model.capabilities.contextWindow,
      runningTasks: 0
    }

    // Its callbacks reach what is defined further down, once a paste runs.
    const imageInput = makeImageInput({
      services: () => session().services,
      editor: () => editor,
      setEditor: (next) => setEditor(next),
      replay: (key) => {
        if (!exiting) editKey(key)
      },
      note: (message) => commit([palette.yellow(message)]),
      render: () => render()
    })

    const frame = (): LiveFrame => {
      const width = terminal.columns() - 1
      const above: Array<string> = []
      if (turn !== undefined) {
        const seconds = Math.floor((Date.now() - turnStarted) / 1000)
        above.push(`${palette.cyan(spinner[tick % spinner.length] ?? "")} ${activity ?? palette.dim("working…")} ${palette.dim(`${seconds} s · Ctrl+C cancels`)}`)
      } else if (activity !== undefined) above.push(activity)
      for (const queued of queue) above.push(palette.dim(clipText(`queued: ${queued.text.replace(/\n/g, " ")}`, width)))
      const layout =
        editor.text === ""
          ? { rows: [`${promptMark}${palette.dim("Ask anything · / commands · @ files · Shift+Enter new line")}`], cursorRow: 0, cursorColumn: promptMark.length }
          : layoutEditor(editor, width + 1, palette.magenta)
      const below: Array<string> = []
      if (completion !== undefined) {
        completion.items.forEach((item, index) => {
          const label = item.value.padEnd(completion?.kind === "command" ? 16 : 0)
          const line = clipText(`${label}  ${item.description}`.trimEnd(), width - 2)
          below.push(index === completion?.selected ? `${palette.cyan("›")} ${palette.bold(line)}` : `  ${palette.dim(line)}`)
        })
      }
      const attaching = imageInput.status()
      if (attaching !== undefined) below.push(palette.dim(clipText(`${attaching} · Ctrl+C cancels`, width)))
      if (hint !== undefined && hint.until > Date.now()) below.push(palette.yellow(hint.text))
      below.push(palette.dim(statusLine(status, width)))
      // Wrapped here, so the cursor's row is known whatever the width.
      // A very long unfinished line shows its end; it is committed whole once its newline arrives.
      const partialRows = partial === "" ? [] : wrapLine(partial, width).slice(-Math.max(1, Math.floor(terminal.rows() / 3)))
      const aboveRows = [...partialRows, ...above.flatMap((line) => wrapLine(line, width))]
      // A live region taller than the screen could not be redrawn in place: long input shows a window around the cursor.
      const room = Math.max(1, terminal.rows() - aboveRows.length - below.length - 1)
      const first = Math.max(0, Math.min(layout.cursorRow - Math.floor(room / 2), layout.rows.length - room))
      const editorRows = layout.rows.slice(first, first + room)
      return {
        lines: [...aboveRows, ...editorRows, ...below],
        cursor: { row: aboveRows.length + layout.cursorRow - first, column: layout.cursorColumn }
      }
    }
    const render = () => {
      if (!dialogOpen) screen.live(frame())
    }

    let renderScheduled = false
    const scheduleRender = () => {
      if (renderScheduled) return
      renderScheduled = true
      setTimeout(() => {
        renderScheduled = false
        render()
      }, 16)
    }

    const commit = (lines: ReadonlyArray<string>) => {
      if (lines.length > 0) screen.commit(lines, dialogOpen ? undefined : frame())
    }

    const view = makeTurnView(
      {
        commit,
        partial: (text) => {
          partial = text
          scheduleRender()
        },
        activity: (text) => {
          activity = text
          scheduleRender()
        },
        columns: terminal.columns
      },
      palette
    )

    let cancelTurn = () => {}
    const dialogs = makeDialogs(
      {
        takeOver: () => {
          dialogOpen = true
          screen.clear()
          terminal.pauseInput()
        },
        giveBack: () => {
          dialogOpen = false
          terminal.resumeInput()
          render()
        },
        commit,
        columns: terminal.columns,
        input: process.stdin,
        output: terminal.stream,
        interruptTurn: () => cancelTurn()
      },
      palette
    )

    const host = yield* openSessionHost(prepared, { flags: options.flags, env: options.env, renderer: view, operator: dialogs })
    /** The session turns and commands run on; it changes with /clear, /resume and /fork. */
    const session = () => host.current().session
    const current = () => host.current().prepared
    // Titles are asked for here rather than in the session's scope, so that a switch does not cut one short.
    const appScope = yield* Effect.scope

    const refreshStatus = () =>
      Effect.runPromise(
        Effect.gen(function* () {
          const doc = yield* (yield* Conversation).document
          const entry = (yield* Providers).current().entry
          const lastUsage = [...doc.items].reverse().find((item) => item._tag === "assistant" && item.usage !== undefined)
          const usage = lastUsage?._tag === "assistant" ? lastUsage.usage : undefined
          status = {
            mode: doc.mode,
            approval: doc.approval,
            model: entry.ref,
            promptSet: selectPromptSet(current().paths.home, current().prompts.promptSet).name,
            contextUsed: usage === undefined ? 0 : usage.inputTokens + usage.outputTokens,
            contextWindow: entry.capabilities.contextWindow,
            runningTasks: yield* session().runningTasks
          }
        }).pipe(Effect.provide(session().services))
      ).then(render, () => render())

    const refreshTasks = () =>
      Effect.runPromise(session().runningTasks).then((running) => {
        if (running !== status.runningTasks) {
          status = { ...status, runningTasks: running }
          render()
        }
      })

    let finish: (code: number) => void = () => {}
    const finished = new Promise<number>((resolve) => {
      finish = resolve
    })
    let exiting = false
    const exit = () => {
      if (exiting) return
      exiting = true
      imageInput.cancel()
      const running = turn
      if (running === undefined) finish(0)
      else void Effect.runPromise(Fiber.interrupt(running)).then(() => finish(0))
    }

    const switched = (active: ActiveSession, how: SwitchKind) => {
      const doc = active.prepared.document
      const title = doc.title === undefined ? "" : ` · ${doc.title}`
      const header = {
        clear: `new session ${doc.id}`,
        fork: `forked into session ${doc.id} (from ${doc.parent ?? "?"})`,
        resume: `resumed session ${doc.id}${title}`,
        cd: `workspace ${doc.workspace} · session ${doc.id} goes on here`,
        space: `workspace ${doc.workspace} · new session ${doc.id}`
      }[how]
      if (doc.workspace !== workspace) {
        workspace = doc.workspace
        files = undefined
        historyPath = historyFile(active.prepared.paths.home, workspace)
        history = makeHistory(loadHistory(historyPath))
      }
      commit([palette.dim(header), ...[...active.prepared.notes, ...active.session.notes].map((note) => palette.yellow(note))])
      if (how === "resume") commit(recap(doc.items, palette, terminal.columns()))
      void refreshStatus()
    }

    const commandContext: CommandContext = {
      get controls() {
        return session().controls
      },
      print: (lines) => commit(lines),
      palette,
      exit,
      disabledTools: prepared.disabledTools,
      host,
      switched,
      pickSession: dialogs.pickSession,
      pickWorkspace: dialogs.pickWorkspace,
      sessionId: () => current().document.id,
      workspace: () => workspace,
      mcp: () => session().mcp
    }

    /** Runs a turn (or a command that counts as one) as the fiber Ctrl+C interrupts. */
    const runBusy = (work: Effect.Effect<unknown, never, SessionServices>, label: string | undefined) => {
      turnStarted = Date.now()
      activity = label
      const fiber = Effect.runFork(work.pipe(Effect.provide(session().services)))
      turn = fiber
      fiber.addObserver(() => {
        turn = undefined
        activity = undefined
        partial = ""
        commit([""])
        void refreshStatus()
        runQueued()
      })
    }

    /** The next queued prompt or command, once nothing runs. */
    const runQueued = () => {
      const next = queue.shift()
      if (next !== undefined && !exiting) submit(next.text, next.images, true)
      else render()
    }

    /**
     * Names the session in the background: it never delays the input, and a failure leaves the
     * session untitled. A switch meanwhile closes the session's scope, and with it its background
     * saves, so a title that arrives after one is written here (under the session's lock).
     */
    const nameInBackground = (running: Session, id: string) =>
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
          // Closed: never write from the stale in-memory copy; the file as it is now, under its lock.
          return saveLateTitle(now.prepared.store, id, title)
        }),
        Effect.ignore,
        Effect.forkIn(appScope)
      )

    const startTurn = (input: UserInput) => {
      const running = session()
      const id = current().document.id
      runBusy(
        runTurn(input, { maxSteps: current().maxSteps, maxRetryWaitSeconds: current().config.retry?.maxWaitSeconds }).pipe(
          Effect.tap((outcome) => (outcome._tag === "Answered" ? nameInBackground(running, id) : Effect.void)),
          Effect.catchAll((error) => view.failed(error.message)),
          Effect.onInterrupt(() => Effect.sync(view.interrupted))
        ),
        undefined
      )
    }

    const commandFailed = (error: { readonly message: string }) => Effect.sync(() => commit([palette.yellow(error.message)]))

    cancelTurn = () => {
      if (turn !== undefined) Effect.runFork(Fiber.interrupt(turn))
    }

    const runCommand = (text: string): boolean => {
      const parsed = parseCommandLine(text)
      if (parsed === undefined) return false
      const command = findCommand(parsed.name)
      if (command === undefined) {
        commit([palette.red(`unknown command /${parsed.name} · /help lists them`)])
        return true
      }
      const work = command.run(parsed.args, commandContext).pipe(Effect.catchAll(commandFailed))
      if (command.asTurn !== undefined) {
        runBusy(work.pipe(Effect.onInterrupt(() => Effect.sync(() => commit([palette.yellow("⏹ cancelled")])))), command.asTurn)
        return true
      }
      // Until it ends (a switch of session, a picker), what is sent waits, as during a turn.
      commandRunning = true
      void Effect.runPromiseExit(work.pipe(Effect.provide(session().services))).then((exit) => {
        commandRunning = false
        // A defect (a switch whose old session could not be reopened either, say) leaves no session
        // worth trusting: say so in one line and leave, rather than go on with one that cannot save.
        if (exit._tag === "Failure") {
          commit([palette.red(`crystal: /${parsed.name} failed: ${Cause.pretty(exit.cause).split("\n")[0] ?? "unknown error"}; leaving`)])
          if (!exiting) {
            exiting = true
            finish(1)
          }
          return
        }
        // Whatever the command changed (mode, model, prompts…) shows in the status line.
        void refreshStatus()
        runQueued()
      })
      return true
    }

    /** A prompt or command from the editor (or the queue), with the images of its markers. */
    const submit = (text: string, images: UserInput["images"] = [], fromQueue = false) => {
      if (text.trim() === "") return
      if (!fromQueue) {
        history = historyRecord(history, text)
        void appendHistory(historyPath, workspace, text)
      }
      if (turn !== undefined || commandRunning) {
        queue.push({ text, images })
        render()
        return
      }
      const lines = text.split("\n")
      commit(lines.map((line, index) => (index === 0 ? palette.bold(`${promptMark}${line}`) : palette.bold(`  ${line}`))))
      if (text.startsWith("/") && runCommand(text)) return
      startTurn({ text, images })
      render()
    }

    const updateCompletion = () => {
      if (completionDismissed !== undefined && completionDismissed === editor.text) {
        completion = undefined
        return
      }
      completionDismissed = undefined
      const previous = completion
      completion = findCompletion(editor, commandEntries(), () => (files ??= listWorkspaceFiles(workspace)))
      if (completion !== undefined && previous !== undefined && previous.kind === completion.kind) {
        const keep = completion.items.findIndex((item) => item.value === previous.items[previous.selected]?.value)
        if (keep >= 0) completion = { ...completion, selected: keep }
      }
    }

    const setEditor = (next: EditorState) => {
      editor = next
      imageInput.keepOnly(next)
      updateCompletion()
    }

    const onKey = (key: Key) => {
      if (!imageInput.take(key)) editKey(key)
    }

    const editKey = (key: Key) => {
      if (key.type === "ctrl" && key.letter === "c") {
        if (turn !== undefined) {
          cancelTurn()
          return
        }
        if (editor.text !== "") {
          setEditor(emptyEditor)
          return
        }
        const now = Date.now()
        if (now - lastCtrlC <= exitWindowMs) {
          exit()
          return
        }
        lastCtrlC = now
        hint = { text: "Press Ctrl+C again to exit", until: now + exitWindowMs }
        setTimeout(render, exitWindowMs + 10)
        return
      }
      if (key.type === "ctrl" && key.letter === "d" && editor.text === "") {
        exit()
        return
      }
      if (key.type === "key" && key.name === "escape") {
        if (completion !== undefined) {
          completionDismissed = editor.text
          completion = undefined
        } else setEditor(emptyEditor)
        return
      }
      if (completion !== undefined && key.type === "key") {
        if (key.name === "up" || key.name === "down") {
          completion = moveSelection(completion, key.name === "up" ? -1 : 1)
          return
        }
        if (key.name === "tab" || (key.name === "enter" && !key.shift && !key.alt)) {
          const chosen = completion.items[completion.selected]
          const accepted = acceptCompletion(editor, completion)
          // Enter on a command runs it at once when it takes no arguments left to type.
          if (key.name === "enter" && completion.kind === "command" && chosen !== undefined) {
            const name = chosen.value.slice(1)
            const command = findCommand(name)
            if (command?.usage === undefined || editor.text === chosen.value) {
              setEditor(emptyEditor)
              submit(chosen.value)
              return
            }
          }
          completionDismissed = accepted.text
          setEditor(accepted)
          return
        }
      }
      const result = editorKey(editor, key)
      switch (result._tag) {
        case "Edited":
          setEditor(result.state)
          return
        case "Submit": {
          const images = imageInput.imagesOf(editor)
          setEditor(emptyEditor)
          submit(result.text, images)
          return
        }
        case "HistoryPrevious": {
          const previous = historyPrevious(history, editor.text)
          if (previous !== undefined) {
            history = previous.history
            setEditor(editorWith(previous.text))
          }
          return
        }
        case "HistoryNext": {
          const next = historyNext(history)
          if (next !== undefined) {
            history = next.history
            setEditor(editorWith(next.text))
          }
          return
        }
        case "Unhandled":
          return
      }
    }

    let pending = ""
    terminal.onInput((data) => {
      const decoded = decodeKeys(pending + data)
      pending = decoded.rest
      for (const key of decoded.keys) {
        if (exiting) break
        onKey(key)
      }
      if (!exiting) render()
    })
    terminal.onResize(render)

    const id = prepared.document.id
    commit([
      `${palette.bold("Crystal")} ${palette.dim(`· ${prepared.model.ref} · ${workspace}`)}`,
      palette.dim(`session ${id}${prepared.resumed ? " (resumed)" : ""} · /help for commands and keys · Ctrl+D leaves`),
      ...[...prepared.notes, ...session().notes].map((note) => palette.yellow(note)),
      ""
    ])
    if (prepared.resumed) commit(recap(prepared.document.items, palette, terminal.columns()))
    yield* Effect.promise(refreshStatus)
    startupComplete()
    const timer = setInterval(() => {
      tick++
      if (turn !== undefined) render()
      if (tick % 10 === 0) void refreshTasks()
    }, 100)
    // SIGTERM (or SIGINT from outside) interrupts this wait: the turn is interrupted too, so it saves what was complete.
    const code = yield* Effect.promise(() => finished).pipe(
      Effect.ensuring(
        Effect.suspend(() => {
          clearInterval(timer)
          return turn === undefined ? Effect.void : Fiber.interrupt(turn)
        })
      )
    )
    screen.clear()
    terminal.restore()
    terminal.write(palette.dim(`session saved · resume it with: crystal --resume ${current().document.id}\n`))
    return code
  })
