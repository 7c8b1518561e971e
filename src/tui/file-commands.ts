/** A command from a file as a slash command: it runs like a turn (spinner, Ctrl+C cancels), its prompt filled in. */
import * as Effect from "effect/Effect"
import { fileCommandInput } from "../engine/file-command.ts"
import type { FileCommand } from "../prompts/command-files.ts"
import type { SlashCommand } from "./commands.ts"

export const fileSlashCommand = (command: FileCommand): SlashCommand => ({
  name: command.name,
  ...(command.usage === undefined ? {} : { usage: command.usage }),
  description: command.description,
  asTurn: `/${command.name}…`,
  promptTurn: true,
  run: (args, context) => fileCommandInput(command, args, context.controls).pipe(Effect.flatMap(context.turn))
})
