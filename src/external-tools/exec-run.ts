/** An exec tool's call (SPEC X2): loaded with the first one, so a session that never calls one never loads node:child_process for it. */
import * as Effect from "effect/Effect"
import { runArgv } from "../bash/run-argv.ts"
import { BASH_OUTPUT_CAPS } from "../tools/bash-specs.ts"
import { capHeadTail } from "../tools/bash-tools.ts"
import { ToolError, type ToolContext, type ToolOutput } from "../tools/tool.ts"
import { attachContent, parseContent } from "./content-output.ts"
import type { LoadableSet } from "./discover.ts"
import { commandArgv, execEnvironment, type Args } from "./exec-tool.ts"
import { ensureDataDirs, type ExternalToolHost } from "./host.ts"
import type { ExecToolDeclaration } from "./manifest.ts"

const STDERR_TAIL_CHARS = 4000

const tail = (text: string): string => {
  const trimmed = text.trimEnd()
  return trimmed.length <= STDERR_TAIL_CHARS ? trimmed : `…${trimmed.slice(-STDERR_TAIL_CHARS)}`
}

export const runExec = (set: LoadableSet, declaration: ExecToolDeclaration, host: ExternalToolHost, args: Args, context: ToolContext): Effect.Effect<ToolOutput, ToolError> =>
  Effect.gen(function* () {
    const argv = commandArgv(set, declaration, args)
    if (typeof argv === "string") return yield* new ToolError({ message: argv })
    const [file, ...rest] = argv
    const dirs = yield* ensureDataDirs(host, set.name)
    const approval = yield* host.approval
    const result = yield* runArgv({
      file: file ?? "",
      args: rest,
      cwd: host.workspace,
      home: host.home,
      env: execEnvironment(host, context, approval, dirs),
      stdin: declaration.stdin ? JSON.stringify(args) : undefined,
      timeoutSeconds: declaration.timeoutSeconds
    }).pipe(Effect.mapError((error) => new ToolError({ message: `${declaration.name}: ${error.message}` })))
    const outcome = result.outcome
    if (outcome._tag === "TimedOut") {
      return { text: `${declaration.name} timed out after ${outcome.seconds} s; its processes were killed.${result.stderr.trim() === "" ? "" : `\nstderr:\n${tail(result.stderr)}`}`, isError: true }
    }
    if (outcome._tag === "Signaled") return { text: `${declaration.name} was killed by ${outcome.signal}.${result.stderr.trim() === "" ? "" : `\nstderr:\n${tail(result.stderr)}`}`, isError: true }
    if (outcome.code !== 0) {
      const stderr = tail(result.stderr)
      return { text: `${declaration.name} failed (exit ${outcome.code})${stderr === "" ? "" : `:\n${stderr}`}`, isError: true }
    }
    if (declaration.output === "content") {
      let json: unknown
      try {
        json = JSON.parse(result.stdout)
      } catch {
        return yield* new ToolError({ message: `${declaration.name} declares "output": "content" but its stdout is not JSON like {"text": "...", "images": [...]}` })
      }
      const content = parseContent(json, declaration.name)
      if (typeof content === "string") return yield* new ToolError({ message: content })
      const capped = yield* capHeadTail(context, declaration.name, content.text, BASH_OUTPUT_CAPS)
      return yield* attachContent(declaration.name, { ...content, text: capped }, context).pipe(
        Effect.catchTag("FenceError", (error) => Effect.fail(new ToolError({ message: `${declaration.name}: ${error.message}` })))
      )
    }
    return { text: yield* capHeadTail(context, declaration.name, result.stdout, BASH_OUTPUT_CAPS) }
  })

