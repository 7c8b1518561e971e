/**
 * `crystal run "/NAME args"`: a command from a file (or /init) becomes the turn's prompt, filled in
 * as the TUI fills it in. Any other text, a slash and all, is the prompt as it is (a path such as
 * "/etc/hosts: what is it?" stays a question); a refused command file fails the run with its note.
 */
import * as Effect from "effect/Effect"
import type { PreparedSession } from "../../layers/prepare.ts"
import type { Session } from "../../layers/session.ts"
import { ConfigError } from "../config/errors.ts"
import { fileCommandInput } from "../engine/file-command.ts"
import { discoverCommands, parseCommandLine } from "../prompts/command-files.ts"
import { initInstruction } from "../prompts/init-prompt.ts"

export const headlessPrompt = (text: string, prepared: PreparedSession, session: Session) =>
  Effect.gen(function* () {
    const call = text.startsWith("/") ? parseCommandLine(text) : undefined
    if (call === undefined) return text
    if (call.name === "init") return initInstruction(call.args)
    // Only a run that names a command pays for the built-in list (the TUI's command table).
    const { builtinCommandNames } = yield* Effect.promise(() => import("../tui/commands.ts"))
    const list = discoverCommands(prepared.paths.home, prepared.document.workspace, builtinCommandNames())
    const command = list.commands.find((entry) => entry.name === call.name)
    if (command !== undefined) return (yield* fileCommandInput(command, call.args, session.controls).pipe(Effect.provide(session.services))).text
    const refused = list.refused.get(call.name)
    return refused === undefined ? text : yield* new ConfigError({ message: refused })
  })
