/**
 * /init: a turn with a fixed prompt that has the model explore the workspace with the read tools
 * and write AGENTS.md (or propose an edit to it). The write is an ordinary write or edit tool call,
 * so it meets the session's approval like any other (the dialog shows the diff): nothing here writes.
 */
import * as Effect from "effect/Effect"
import { Conversation } from "../engine/conversation.ts"
import type { SlashCommand } from "./commands.ts"
import { initInstruction } from "../prompts/init-prompt.ts"

export const initCommand: SlashCommand = {
  name: "init",
  usage: "[NOTES]",
  description: "explore the workspace, then write AGENTS.md or propose an edit",
  asTurn: "/init: exploring the workspace…",
  promptTurn: true,
  run: (args, context) =>
    Effect.flatMap(Conversation, (conversation) => conversation.document).pipe(
      Effect.flatMap((doc) =>
        doc.mode === "plan"
          ? Effect.fail({ message: "/init writes AGENTS.md, and plan mode cannot write: /work first" })
          : context.turn({ text: initInstruction(args) })
      )
    )
}
