/**
 * The shell tools' implementations (SPEC T5, T6): bash (foreground) and bash_start / bash_status /
 * bash_logs / bash_stop on the session's BackgroundBash service. Their definitions are
 * bash-specs.ts; the session imports this module on a shell tool's first run, which is also when
 * node:child_process is first loaded.
 */
import * as Effect from "effect/Effect"
import type { BackgroundBashShape } from "../bash/background.ts"
import type { TaskInfo } from "../bash/background-tasks.ts"
import { runForeground, type ForegroundOutcome } from "../bash/foreground.ts"
import { DEFAULT_LOG_READ_BYTES, defaultShell } from "../bash/limits.ts"
import { sandboxStartNote, sandboxStatus, type SandboxRequest } from "../bash/sandbox.ts"
import { BASH_OUTPUT_CAPS, type BashSettings, bashSpecs, type BashSpecs, bashToolNames, type CommandClassifier, type HeadTailCaps } from "./bash-specs.ts"
import { defineTool, ToolError, type Tool, type ToolContext, type ToolSpec } from "./tool.ts"
import { byteLength, cutLine } from "./truncate.ts"
import { formatBytes } from "../text/bytes.ts"
import { clip } from "../text/clip.ts"
import { plural } from "../text/plural.ts"

export interface BashToolsOptions {
  readonly background: BackgroundBashShape
  /** Foreground time limit (config `bashTimeoutSeconds`, default 120). */
  readonly bashTimeoutSeconds: number
  readonly classifyCommand: CommandClassifier
  /** Foreground SIGTERM → SIGKILL delay. Default 2000 ms. */
  readonly graceMs?: number
  readonly outputCaps?: HeadTailCaps
  /** Foreground output kept in memory for the spill file (head + tail). Default 8 MiB. */
  readonly captureBytes?: number
  /** The commands' environment (src/bash/shell-env.ts); default Crystal's own. */
  readonly env?: NodeJS.ProcessEnv
  /** Crystal's home, for the pid file the first command writes (src/bash/containment.ts). */
  readonly home?: string | undefined
}

export interface BashTools {
  readonly bash: Tool
  readonly bashStart: Tool
  readonly bashStatus: Tool
  readonly bashLogs: Tool
  readonly bashStop: Tool
}

const formatSeconds = (ms: number): string => {
  const seconds = ms / 1000
  return seconds < 10 ? `${seconds.toFixed(1)} s` : `${Math.round(seconds)} s`
}

const statusLine = (outcome: ForegroundOutcome): string => {
  switch (outcome._tag) {
    case "Exited":
      return `exit ${outcome.code}`
    case "Signaled":
      return `killed by ${outcome.signal}`
    case "TimedOut":
      return `timed out after ${outcome.seconds} s; its processes were killed`
  }
}

// CSI sequences (colours, cursor moves) that programs forcing colour still write into a pipe.
const ANSI_CSI = /\u001b\[[0-9;?]*[ -/]*[@-~]/g

/**
 * A line as a terminal would leave it, which is also far fewer tokens: no colour codes, a CRLF
 * line ending dropped, and of a progress bar redrawn with carriage returns only its last state.
 * The spilled text keeps the raw bytes.
 */
const asDisplayed = (line: string): string => {
  let shown = line.includes("\u001b") ? line.replace(ANSI_CSI, "") : line
  if (shown.endsWith("\r")) shown = shown.slice(0, -1)
  const carriage = shown.lastIndexOf("\r")
  return carriage < 0 ? shown : shown.slice(carriage + 1)
}

/**
 * Keeps the first and last lines of `text` within `caps`. When lines were left out or cut, the
 * whole text is saved with `context.spill` and a line in the gap says what is missing and where it
 * is: `[… N lines (S) not shown; full output saved to PATH — read it with offset=K …]`.
 */
export const capHeadTail = (context: ToolContext, toolName: string, text: string, caps: HeadTailCaps): Effect.Effect<string> => {
  // Only the lines shown are split out and measured: an 8 MB log of short lines costs one pass of
  // indexOf, not millions of strings.
  const body = text.endsWith("\n") ? text.slice(0, -1) : text
  const shown = (start: number, end: number): { readonly line: string; readonly cut: boolean } => {
    const line = asDisplayed(body.slice(start, end))
    const cut = cutLine(line, caps.maxLineChars)
    return { line: cut, cut: cut !== line }
  }
  let cut = false

  const head: Array<string> = []
  let headBytes = 0
  let headEnd = 0 // where the first line not in the head starts
  while (head.length < caps.headLines && headEnd <= body.length) {
    const newline = body.indexOf("\n", headEnd)
    const end = newline < 0 ? body.length : newline
    const line = shown(headEnd, end)
    const size = byteLength(line.line) + 1
    if (head.length > 0 && headBytes + size > caps.headBytes) break
    head.push(line.line)
    cut ||= line.cut
    headBytes += size
    headEnd = end + 1
  }

  const tail: Array<string> = []
  let tailBytes = 0
  let tailStart = body.length + 1 // where the first line of the tail starts
  while (tail.length < caps.tailLines && tailStart > headEnd) {
    const newline = body.lastIndexOf("\n", tailStart - 2)
    const start = newline < headEnd - 1 ? headEnd : newline + 1
    const line = shown(start, tailStart - 1)
    const size = byteLength(line.line) + 1
    if (tail.length > 0 && tailBytes + size > caps.tailBytes) break
    tail.unshift(line.line)
    cut ||= line.cut
    tailBytes += size
    tailStart = start
  }

  let omitted = 0
  for (let at = body.indexOf("\n", headEnd); at >= 0 && at < tailStart; at = body.indexOf("\n", at + 1)) omitted++
  if (omitted === 0 && !cut) return Effect.succeed([...head, ...tail].join("\n"))

  const omittedBytes = omitted === 0 ? 0 : byteLength(body.slice(headEnd, tailStart))
  const reason = omitted === 0 ? `lines longer than ${caps.maxLineChars} characters were cut` : `${plural(omitted, "line")} (${formatBytes(omittedBytes)}) not shown`
  // Cut lines only: the note goes last. Lines left out: it goes where they were.
  const join = (note: string): string => (omitted === 0 ? [...head, ...tail, note] : [...head, note, ...tail]).join("\n")
  return context.spill(toolName, text).pipe(
    Effect.map((saved) =>
      join(omitted === 0 ? `[… ${reason}; full output saved to ${saved} …]` : `[… ${reason}; full output saved to ${saved} — read it with offset=${head.length + 1} …]`)
    ),
    Effect.catchAll((error) => Effect.succeed(join(`[… ${reason}; the full output could not be saved: ${error.message} …]`)))
  )
}

const commandPreview = (command: string): string => {
  const firstLine = command.trim().split("\n")[0] ?? ""
  const preview = clip(firstLine, 81)
  return firstLine !== command.trim() && preview === firstLine ? `${preview} …` : preview
}

const describeState = (task: TaskInfo, now: number): string => {
  const ran = formatSeconds((task.endedAt ?? now) - task.startedAt)
  switch (task.state.status) {
    case "running":
      return `running for ${ran}`
    case "exited":
      return `exited with code ${task.state.code} after ${ran}`
    case "killed":
      return `killed by ${task.state.signal} after ${ran}`
    case "stopped":
      return `stopped by bash_stop after ${ran}`
    case "timed out":
      return `timed out after ${task.state.seconds} s and was killed`
  }
}

const describeTask = (task: TaskInfo, now: number): string =>
  `${task.id} (pid ${task.pid}): ${describeState(task, now)}; ${formatBytes(task.outputBytes)} of output; \`${commandPreview(task.command)}\``

const nonEmpty = (command: string): Effect.Effect<string, ToolError> =>
  command.trim() === "" ? Effect.fail(new ToolError({ message: "command is empty" })) : Effect.succeed(command)

type Run<S> = S extends ToolSpec<infer F> ? Tool<F>["run"] : never

/** What the OS sandbox keeps for a call the verdict marked sandboxed: the workspace and grants visible, the spill folder writable. */
const sandboxFor = (context: ToolContext): SandboxRequest | undefined =>
  context.sandbox === undefined
    ? undefined
    : {
        mode: context.sandbox,
        cwd: context.fence.workspace,
        readable: context.fence.grants.map((grant) => grant.root),
        writable: context.spillDir === undefined ? [] : [context.spillDir]
      }

let probeFailureTold = false

/**
 * A sandbox program that is installed but does not work here is only found out by the first
 * sandboxed call (the session-start note covers a missing one): that call's result says so, once.
 */
const unsandboxedNote = (request: SandboxRequest | undefined): string => {
  if (request === undefined || probeFailureTold) return ""
  const status = sandboxStatus()
  if (status.available || sandboxStartNote() !== undefined) return ""
  probeFailureTold = true
  return `\n[not sandboxed: ${status.reason}; the command classifier alone decided]`
}

/** The run functions of the five shell tools; their definitions are bash-specs.ts. */
export interface BashRunners {
  readonly bash: Run<BashSpecs["bash"]>
  readonly bashStart: Run<BashSpecs["bashStart"]>
  readonly bashStatus: Run<BashSpecs["bashStatus"]>
  readonly bashLogs: Run<BashSpecs["bashLogs"]>
  readonly bashStop: Run<BashSpecs["bashStop"]>
}

export const makeBashRunners = (options: Omit<BashToolsOptions, "classifyCommand">): BashRunners => {
  const { background, bashTimeoutSeconds } = options
  const caps = options.outputCaps ?? BASH_OUTPUT_CAPS
  const asToolError = (error: { readonly message: string }) => new ToolError({ message: error.message })
  return {
    bash: (args, context) =>
      Effect.gen(function* () {
        const command = yield* nonEmpty(args.command)
        const sandbox = sandboxFor(context)
        const result = yield* runForeground({
          command,
          cwd: context.fence.workspace,
          secrets: context.secrets,
          home: options.home,
          sandbox,
          sandboxPool: background.sandbox,
          timeoutSeconds: bashTimeoutSeconds,
          ...(options.graceMs === undefined ? {} : { graceMs: options.graceMs }),
          ...(options.captureBytes === undefined ? {} : { captureBytes: options.captureBytes }),
          ...(options.env === undefined ? {} : { env: options.env })
        }).pipe(Effect.mapError(asToolError))
        const status = statusLine(result.outcome)
        const note = unsandboxedNote(sandbox)
        if (result.totalBytes === 0) return { text: `${status}\n(no output)${note}` }
        return { text: `${status}\n${yield* capHeadTail(context, bashToolNames.bash, result.output, caps)}${note}` }
      }),
    bashStart: (args, context) =>
      Effect.gen(function* () {
        const command = yield* nonEmpty(args.command)
        const sandbox = sandboxFor(context)
        const task = yield* background.start(command, { cwd: context.fence.workspace, secrets: context.secrets, sandbox }).pipe(Effect.mapError(asToolError))
        return { text: `started ${task.id} (pid ${task.pid})${unsandboxedNote(sandbox)}` }
      }),
    bashStatus: (args) =>
      Effect.gen(function* () {
        const now = Date.now()
        if (args.id !== undefined) return { text: describeTask(yield* background.status(args.id).pipe(Effect.mapError(asToolError)), now) }
        const tasks = yield* background.list
        if (tasks.length === 0) return { text: "no background tasks in this session" }
        const running = tasks.filter((task) => task.state.status === "running").length
        return { text: [...tasks.map((task) => describeTask(task, now)), `${running} of ${background.maxTasks} running`].join("\n") }
      }),
    bashLogs: (args) =>
      Effect.gen(function* () {
        const slice = yield* background
          .logs(args.id, { offset: args.offset, limit: args.limit ?? DEFAULT_LOG_READ_BYTES })
          .pipe(Effect.mapError(asToolError))
        const state = slice.running ? "running" : "finished"
        const header = `[${slice.id} ${state}; bytes ${slice.offset}–${slice.nextOffset} of ${slice.totalBytes}; oldest held ${slice.oldestOffset}; next offset ${slice.nextOffset}]`
        const notes: Array<string> = []
        if (slice.released) notes.push("[this finished task's output was released to save memory; only its state is kept]")
        else if (slice.skipped) notes.push(`[offset ${args.offset} is no longer held: older output was dropped; showing from ${slice.offset}]`)
        const body = slice.text !== "" ? slice.text.split("\n").map(asDisplayed).join("\n") : slice.running ? "(no new output yet)" : "(no output in this range)"
        return { text: [header, ...notes, body].join("\n") }
      }),
    bashStop: (args) =>
      Effect.gen(function* () {
        const before = yield* background.status(args.id).pipe(Effect.mapError(asToolError))
        const task = yield* background.stop(args.id).pipe(Effect.mapError(asToolError))
        const now = Date.now()
        if (before.state.status !== "running") return { text: `${task.id} was not running: ${describeState(task, now)}` }
        return { text: `${task.id} ${describeState(task, now)}` }
      })
  }
}

/** The settings a service and its options imply, for the definitions. */
export const bashSettingsOf = (options: Omit<BashToolsOptions, "classifyCommand">): BashSettings => ({
  bashTimeoutSeconds: options.bashTimeoutSeconds,
  backgroundTimeoutSeconds: options.background.timeoutSeconds,
  bufferBytes: options.background.bufferBytes,
  maxTasks: options.background.maxTasks,
  graceMs: options.background.graceMs,
  caps: options.outputCaps ?? BASH_OUTPUT_CAPS,
  shell: defaultShell()
})

/** Definitions and implementations together, for a caller that has the service already (tests, benchmarks). */
export const makeBashTools = (options: BashToolsOptions): BashTools => {
  const specs = bashSpecs(bashSettingsOf(options), options.classifyCommand)
  const runners = makeBashRunners(options)
  return {
    bash: defineTool({ ...specs.bash, run: runners.bash }),
    bashStart: defineTool({ ...specs.bashStart, run: runners.bashStart }),
    bashStatus: defineTool({ ...specs.bashStatus, run: runners.bashStatus }),
    bashLogs: defineTool({ ...specs.bashLogs, run: runners.bashLogs }),
    bashStop: defineTool({ ...specs.bashStop, run: runners.bashStop })
  }
}
