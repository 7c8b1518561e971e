import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { decodeForSearch, grepBuiltin, grepGlob } from "./grep-builtin.ts"
import { formatRecords, GREP_MAX_RECORDS, GREP_MAX_TEXT, type GrepRequest, type GrepResult } from "./grep-records.ts"
import { statOrNotFound } from "./not-found.ts"
import { findRipgrep, grepWithRipgrep, RipgrepUnavailable } from "./ripgrep.ts"
import { ToolError, type ToolContext, type ToolFailure, type ToolOutput } from "./tool.ts"
import { capLines, type OutputCaps } from "./truncate.ts"
import { firstRefusedIgnoreFile, ignoreRootFor, WalkAborted } from "../files/walk/walk.ts"
import { messageOf } from "../text/error-text.ts"
import { formatBytes } from "../text/bytes.ts"
import { grepSpec } from "./specs.ts"

export const GREP_CAPS: OutputCaps = { maxLines: 500, maxBytes: 32 * 1024, maxLineChars: 500 }


export interface GrepArgs {
  readonly pattern: string
  readonly path?: string | undefined
  readonly glob?: string | undefined
  readonly ignoreCase?: boolean | undefined
  readonly context?: number | undefined
  readonly filesOnly?: boolean | undefined
}

export interface GrepToolOptions {
  /** The `rg` program: omitted = look it up on PATH, `null` = always use the built-in search. */
  readonly ripgrep?: string | null
}

/** What a failed walk or search tells the model. */
const grepFailure = (error: unknown): ToolError =>
  error instanceof ToolError
    ? error
    : error instanceof WalkAborted
      ? new ToolError({ message: "grep was interrupted" })
      : new ToolError({ message: `grep failed: ${messageOf(error)}` })

/** The search without rg, as an interruptible Effect. */
export const runBuiltinGrep = (request: GrepRequest): Effect.Effect<GrepResult, ToolError> =>
  Effect.tryPromise({ try: (signal) => grepBuiltin(request, signal), catch: grepFailure })

/** How much of a named file decides whether it is binary. */
const binarySniffBytes = 8192

/**
 * The search's directories are walked first for an ignore file the walker refuses (a FIFO, a
 * device, one too large to read): rg would open it itself, and a FIFO blocks it until a writer comes,
 * `/dev/zero` feeds it without end. When there is one, the built-in search (which reads it as
 * absent) answers instead. Walked before rg rather than beside it: on two cores the walk alongside
 * rg cost more wall time than the walk alone (scripts/bench/grep-ignore-check.ts).
 */
const ripgrepUnlessRefused = (ripgrep: string, request: GrepRequest): Effect.Effect<GrepResult, ToolError | RipgrepUnavailable> =>
  request.targetIsFile
    ? grepWithRipgrep(ripgrep, request)
    : Effect.tryPromise({
        try: (signal) => firstRefusedIgnoreFile(request.root, request.target, { filter: request.glob === undefined ? undefined : grepGlob(request.glob), signal }),
        catch: grepFailure
      }).pipe(
        Effect.flatMap((refused) =>
          refused === undefined ? grepWithRipgrep(ripgrep, request) : Effect.fail(new RipgrepUnavailable(`${refused.file} ${refused.reason}`))
        )
      )

/** The search with `rg` when a program is given, falling back to the built-in one if it cannot start or must not run. */
export const runGrep = (ripgrep: string | undefined, request: GrepRequest): Effect.Effect<GrepResult, ToolError> =>
  ripgrep === undefined
    ? runBuiltinGrep(request)
    : ripgrepUnlessRefused(ripgrep, request).pipe(Effect.catchTag("RipgrepUnavailable", () => runBuiltinGrep(request)))

/** Checks the arguments and resolves the target; the request both implementations take. */
export const prepareGrep = (args: GrepArgs, context: ToolContext): Effect.Effect<{ readonly request: GrepRequest; readonly display: string } | { readonly refused: string }, ToolFailure> =>
  Effect.gen(function* () {
    const { real, display } = yield* context.fence.resolve(args.path ?? ".", "read")
    // Checked here for rg too, which would report a bad glob in its own words.
    const glob = args.glob
    if (glob !== undefined) yield* Effect.try({ try: () => grepGlob(glob), catch: (error) => (error instanceof ToolError ? error : new ToolError({ message: messageOf(error) })) })
    const checked = yield* Effect.tryPromise({
      try: async () => {
        const stat = await statOrNotFound(context, real, display, "Path")
        if (stat.isDirectory()) return { isFile: false, binary: false }
        if (!stat.isFile()) throw new ToolError({ message: `${display} is not a regular file or directory.` })
        // An explicitly named binary file: rg would search it anyway, so refuse it here for both. The
        // head decides, as for read: a huge log is not loaded whole just to be handed to rg.
        const handle = await fs.open(real, "r")
        try {
          const head = new Uint8Array(binarySniffBytes)
          const { bytesRead } = await handle.read(head, 0, head.length, 0)
          return { isFile: true, binary: decodeForSearch(head.subarray(0, bytesRead)) === undefined }
        } finally {
          await handle.close()
        }
      },
      catch: (error) => (error instanceof ToolError ? error : new ToolError({ message: `cannot search ${display}: ${messageOf(error)}` }))
    })
    if (checked.binary) return { refused: `${display} is a binary file; grep searches text files only.` }
    const request: GrepRequest = {
      pattern: args.pattern,
      ignoreCase: args.ignoreCase ?? false,
      context: args.context ?? 0,
      filesOnly: args.filesOnly ?? false,
      glob: args.glob,
      root: ignoreRootFor(context.fence, real),
      target: real,
      targetIsFile: checked.isFile
    }
    return { request, display }
  })

/** The tool's text for a result: formatted, capped (spilling the rest), with notes. */
export const grepOutput = (context: ToolContext, request: GrepRequest, display: string, result: GrepResult): Effect.Effect<string> =>
  Effect.gen(function* () {
    if (result.records.length === 0) {
      const where = request.glob === undefined ? display : `${display} (files matching ${request.glob})`
      return `No matches for ${request.pattern} in ${where}; .git, ignored and binary files are skipped.`
    }
    const lines = formatRecords(result.records, (file) => context.fence.display(path.join(request.root, file)))
    const text = yield* capLines(context, grepSpec.name, lines, GREP_CAPS, { unit: "lines" })
    return result.truncated
      ? `${text}\n[The search stopped after ${GREP_MAX_RECORDS} output lines or ${formatBytes(GREP_MAX_TEXT)}; narrow the pattern, path or glob.]`
      : text
  })

/**
 * The grep tool (its definition is grepSpec in specs.ts). `options.ripgrep` chooses the search:
 * omitted (as the tool runs it) = `rg` from PATH if there is one, a path = that program, `null` =
 * always the built-in search.
 */
export const searchFiles = (args: GrepArgs, context: ToolContext, options: GrepToolOptions = {}): Effect.Effect<ToolOutput, ToolFailure> =>
  Effect.gen(function* () {
    const prepared = yield* prepareGrep(args, context)
    if ("refused" in prepared) return { text: prepared.refused }
    const ripgrep = options.ripgrep === undefined ? yield* Effect.promise(findRipgrep) : (options.ripgrep ?? undefined)
    const result = yield* runGrep(ripgrep, prepared.request)
    return { text: yield* grepOutput(context, prepared.request, prepared.display, result) }
  })
