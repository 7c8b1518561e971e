/**
 * A foreground command: run the shell, wait for it up to a timeout, capture its combined output
 * with bounded memory, and make sure nothing it started outlives it — on success, failure,
 * timeout or interruption (a cancelled turn) alike.
 */
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { DEFAULT_GRACE_MS, drainWaitMs } from "./limits.ts"
import * as Option from "effect/Option"
import { killLeftovers, killProcessTree } from "./process-tree.ts"
import { incompleteTail, leadingContinuations, RingBuffer } from "./ring-buffer.ts"
import type { SandboxRequest } from "./sandbox.ts"
import type { SandboxPool } from "./sandbox-pool.ts"
import type { Secrets } from "../secrets/secrets.ts"
import { spawnShell, type ShellExit, type SpawnError } from "./spawn.ts"

export const DEFAULT_CAPTURE_BYTES = 8 * 1024 * 1024

/**
 * Output kept in memory: everything up to `limit` bytes; past that, the first half and the last
 * half, with the size of the middle that was dropped.
 */
export class OutputCapture {
  private readonly half: number
  private readonly head: Array<Buffer> = []
  private headBytes = 0
  private readonly tail: RingBuffer

  constructor(limit: number) {
    this.half = Math.max(1, Math.floor(limit / 2))
    this.tail = new RingBuffer(this.half)
  }

  readonly write = (chunk: Buffer): void => {
    const room = this.half - this.headBytes
    if (room > 0) {
      const part = chunk.length <= room ? chunk : chunk.subarray(0, room)
      // Node reuses no 'data' buffers, but copying the part we keep lets the rest be collected.
      this.head.push(Buffer.from(part))
      this.headBytes += part.length
      if (part.length === chunk.length) return
      chunk = chunk.subarray(room)
    }
    this.tail.write(chunk)
  }

  /** Bytes written in all. */
  get totalBytes(): number {
    return this.headBytes + this.tail.end
  }

  /** Bytes dropped from the middle. */
  get droppedBytes(): number {
    return this.tail.start
  }

  /**
   * The captured text; when the middle was dropped, a line in its place says how much:
   * `[… N bytes of output dropped here …]`.
   */
  text(): string {
    const head = Buffer.concat(this.head)
    if (this.droppedBytes === 0) return Buffer.concat([head, this.tail.read(0, this.tail.end)]).toString("utf8")
    const headText = head.subarray(0, head.length - incompleteTail(head)).toString("utf8")
    const tail = this.tail.read(this.tail.start, this.tail.end)
    const tailText = tail.subarray(leadingContinuations(tail)).toString("utf8")
    const newline = headText.endsWith("\n") ? "" : "\n"
    return `${headText}${newline}[… ${this.droppedBytes} bytes of output dropped here …]\n${tailText}`
  }
}

export type ForegroundOutcome =
  | { readonly _tag: "Exited"; readonly code: number }
  | { readonly _tag: "Signaled"; readonly signal: string }
  | { readonly _tag: "TimedOut"; readonly seconds: number }

export interface ForegroundResult {
  readonly outcome: ForegroundOutcome
  /** stdout and stderr together, in arrival order (see OutputCapture for the bound). */
  readonly output: string
  readonly totalBytes: number
  readonly droppedBytes: number
  readonly durationMs: number
}

export interface ForegroundOptions {
  readonly command: string
  readonly cwd: string
  readonly timeoutSeconds: number
  /** See SpawnShellOptions.secrets. */
  readonly secrets: Secrets
  /** See SpawnShellOptions.home. */
  readonly home?: string | undefined
  readonly env?: NodeJS.ProcessEnv
  readonly shell?: string
  /** SIGTERM → SIGKILL delay. Default 2000 ms. */
  readonly graceMs?: number
  /** Output kept in memory (head + tail). Default 8 MiB. */
  readonly captureBytes?: number
  /** See SpawnShellOptions.drainMs. */
  readonly drainMs?: number
  /** See SpawnShellOptions.sandbox. */
  readonly sandbox?: SandboxRequest | undefined
  /** See SpawnShellOptions.sandboxPool. */
  readonly sandboxPool?: SandboxPool | undefined
}

const outcomeOf = (exit: ShellExit): ForegroundOutcome =>
  exit.code !== null ? { _tag: "Exited", code: exit.code } : { _tag: "Signaled", signal: exit.signal ?? "unknown signal" }

/**
 * Runs a command to its end. The process group (and, on Linux, every process of the tree) is
 * killed when the timeout passes or when this effect is interrupted; processes the shell left
 * running when it exited are killed too. A failure is only a start failure: a non-zero exit, a
 * signal or a timeout are outcomes.
 */
export const runForeground = (options: ForegroundOptions): Effect.Effect<ForegroundResult, SpawnError> =>
  Effect.suspend(() => {
    const capture = new OutputCapture(options.captureBytes ?? DEFAULT_CAPTURE_BYTES)
    const kill = { graceMs: options.graceMs ?? DEFAULT_GRACE_MS }
    const started = Date.now()
    return Effect.acquireUseRelease(
      spawnShell({
        command: options.command,
        cwd: options.cwd,
        onOutput: capture.write,
        secrets: options.secrets,
        home: options.home,
        sandbox: options.sandbox,
        sandboxPool: options.sandboxPool,
        ...(options.drainMs === undefined ? {} : { drainMs: options.drainMs }),
        ...(options.env === undefined ? {} : { env: options.env }),
        ...(options.shell === undefined ? {} : { shell: options.shell })
      }),
      (shell) =>
        Effect.gen(function* () {
          const exit = yield* Effect.timeoutOption(shell.finished, Duration.millis(options.timeoutSeconds * 1000))
          if (Option.isSome(exit)) return outcomeOf(exit.value)
          yield* killProcessTree(shell.pid, kill)
          // What the processes printed while dying (e.g. a test runner's summary on SIGTERM).
          yield* Effect.timeoutOption(shell.finished, Duration.millis(drainWaitMs(options.drainMs)))
          return { _tag: "TimedOut", seconds: options.timeoutSeconds } satisfies ForegroundOutcome
        }),
      (shell) => (shell.result() === undefined ? killProcessTree(shell.pid, kill) : killLeftovers(shell.pid, kill))
    ).pipe(
      Effect.map(
        (outcome): ForegroundResult => ({
          outcome,
          output: capture.text(),
          totalBytes: capture.totalBytes,
          droppedBytes: capture.droppedBytes,
          durationMs: Date.now() - started
        })
      )
    )
  })
