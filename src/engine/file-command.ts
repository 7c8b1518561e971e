/**
 * A slash command from a file (src/prompts/command-files.ts) turned into the prompt of a turn, in
 * the TUI and in `crystal run "/NAME args"` alike: its `mode` and `model` switch the session the
 * way /mode and /model do (and stay, said in a note), then the body is filled in with the
 * arguments and the placeholder values a Work or Plan text would get now. Approval is never touched.
 */
import * as Effect from "effect/Effect"
import { expandCommand } from "../prompts/command-arguments.ts"
import type { FileCommand } from "../prompts/command-files.ts"
import { PromptResolver } from "../prompts/prompt-resolver.ts"
import { Conversation } from "./conversation.ts"
import { Renderer } from "./renderer.ts"
import type { SessionControls } from "./session-controls.ts"
import type { UserInput } from "./turn.ts"

export const fileCommandInput = (command: FileCommand, args: string, controls: SessionControls) =>
  Effect.gen(function* () {
    const renderer = yield* Renderer
    const conversation = yield* Conversation
    const before = yield* conversation.document
    if (command.mode !== undefined && before.mode !== command.mode) {
      yield* controls.setMode(command.mode)
      yield* renderer.note(`${command.mode} mode (set by /${command.name}; it stays)`)
    }
    if (command.model !== undefined && before.model !== command.model) {
      const entry = yield* controls.switchModel(command.model, `${command.file}: "model"`)
      yield* renderer.note(`model ${entry.ref} (set by /${command.name}; it stays)`)
    }
    const values = yield* (yield* PromptResolver).values(yield* conversation.document)
    const notes: Array<string> = []
    const text = expandCommand(command.body, args, values, (note) => notes.push(note))
    for (const note of notes) yield* renderer.note(note)
    return { text } satisfies UserInput
  })
