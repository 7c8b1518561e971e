/**
 * /rewind (issue 25, docs/checkpoints.md): lists the session's turns (prompt's first line, time,
 * files changed with +/-), then offers files and conversation, files only, or conversation only.
 * A file changed outside Crystal since it recorded it is shown as a diff and asked about; a "no"
 * leaves it as it is. The rewind is a checkpoint of its own: /rewind to it redoes what it undid.
 */
import * as Effect from "effect/Effect"
import { Conversation } from "../engine/conversation.ts"
import { filesChangedText } from "../engine/files-changed.ts"
import { Operator } from "../engine/operator.ts"
import { applyRewind, prepareRewind, rewoundDocument } from "../engine/rewind.ts"
import type { RewindScope } from "../engine/rewind-plan.ts"
import { TurnCheckpoints } from "../engine/turn-checkpoints.ts"
import type { CheckpointRecord } from "../session/checkpoint-records.ts"
import type { CommandContext, CommandEffect } from "./commands.ts"

const when = (iso: string): string => iso.slice(0, 16).replace("T", " ")

const undoneHint = (record: CheckpointRecord): string =>
  record.filesUndoneBy !== undefined || record.conversationUndoneBy !== undefined
    ? ` · undone by ${record.filesUndoneBy ?? record.conversationUndoneBy}`
    : ""

/** One turn as the picker shows it. */
export const turnOption = (record: CheckpointRecord) => ({
  value: String(record.turn),
  label: `${record.turn}. ${record.prompt}`,
  hint: `${when(record.at)} · ${record.files === undefined ? "no files changed" : filesChangedText(record.files)}${undoneHint(record)}`
})

const scopes: ReadonlyArray<{ readonly value: RewindScope; readonly label: string }> = [
  { value: "both", label: "Files and conversation" },
  { value: "files", label: "Files only (the model keeps the conversation)" },
  { value: "conversation", label: "Conversation only (the files stay as they are)" }
]

export const rewindCommand = (args: string, context: CommandContext): CommandEffect =>
  Effect.gen(function* () {
    const conversation = yield* Conversation
    const doc = yield* conversation.document
    const records = doc.checkpoints ?? []
    if (records.length === 0) return context.print(["no turns to rewind yet"])
    const choose = context.choose
    if (choose === undefined) return context.print(["/rewind needs the terminal's dialogs; use crystal rewind --session ID --to TURN"])
    const given = args.trim()
    const picked = given !== "" ? given : yield* choose("Rewind to just before which turn?", records.toReversed().map(turnOption))
    if (picked === undefined) return
    const to = Number(picked)
    if (!Number.isInteger(to)) return context.print([context.palette.red(`/rewind ${given}: expected a turn number (from the list /rewind shows)`)])
    const scope = (yield* choose("Rewind what?", scopes)) as RewindScope | undefined
    if (scope === undefined) return
    const store = scope === "conversation" ? undefined : yield* (yield* TurnCheckpoints).store
    const prepared = yield* prepareRewind(store, doc, to, scope)
    const operator = yield* Operator
    const overwrite = new Set<string>()
    for (const change of prepared.outside) {
      context.print([context.palette.yellow(`${change.path} was changed outside Crystal since it was recorded:`), ...change.diff.map((line) => `  ${line}`)])
      if (yield* operator.confirm(`Rewind ${change.path} too? (What it holds now stays in this rewind's checkpoint.)`, false)) overwrite.add(change.path)
    }
    const applied = yield* applyRewind(store, doc, prepared, overwrite).pipe(
      Effect.tapError((error) =>
        error.partial === undefined ? Effect.void : Effect.zipRight(conversation.update((current) => ({ ...current, checkpoints: error.partial?.records ?? [] })), conversation.save)
      )
    )
    yield* conversation.update((current) => rewoundDocument(current, applied))
    yield* conversation.save
    const files = applied.record.files ?? []
    context.print([
      `rewound to before ${prepared.target.kind === "rewind" ? "rewind" : "turn"} ${prepared.target.turn}: ${scope === "conversation" ? "files kept" : files.length === 0 ? "no file changed" : filesChangedText(files)}${scope === "files" ? ", conversation kept" : `, ${applied.record.removedItems?.length ?? 0} message(s) out of what the model sees`}`,
      ...applied.kept.map((path) => context.palette.yellow(`kept as you changed it: ${path}`)),
      ...prepared.skipped.map((path) => context.palette.yellow(`left as it is (too large for checkpoints): ${path}`)),
      context.palette.dim(`this rewind is checkpoint ${applied.record.turn}: /rewind ${applied.record.turn} redoes it`)
    ])
  })
