/**
 * The five slots of the compaction.user template (SPEC P2): conversation, prior_summary_section,
 * summary_task, output_template and todos_section. The output format lives in output_template, so
 * a replaced compaction.user.md may drop it; the sections end with a blank line because the
 * built-in template puts the next text right after them.
 */
import type { Todo, TranscriptItem } from "../session/items.ts"
import { formatTodos } from "../session/todos.ts"
import { conversationDigest, type DigestLimits } from "./conversation-digest.ts"

export interface CompactionPromptInput {
  readonly summarized: ReadonlyArray<TranscriptItem>
  readonly priorSummary: string | undefined
  readonly todos: ReadonlyArray<Todo>
  readonly instructions: string | undefined
  /** The most of the conversation text the summary request can carry. */
  readonly maxConversationChars: number
}

/** Per-entry cuts: a summary needs what was said and decided, not every byte a tool returned. */
export const compactionDigestLimits = (maxChars: number): DigestLimits => ({
  maxChars,
  userChars: 20_000,
  assistantChars: 12_000,
  toolCallChars: 2_000,
  toolResultChars: 3_000
})

export const outputTemplate = `Write the summary in Markdown with these sections, each brief and concrete (leave a section out when it would be empty):

## Goal
What the operator wants, in their terms, with every requirement and constraint they stated.

## Current plan
The plan being followed (the steps, which are done, which remain), or the latest plan proposed and whether it was accepted.

## Progress
What was done and what was found: decisions with their reasons, commands and their outcomes, errors met and how they were solved.

## Files
The files read or changed and what matters about each (paths exactly as written).

## Next steps
What to do next, and anything left unanswered or waiting for the operator.`

const summaryTask = (instructions: string | undefined): string => {
  const task =
    "Summarise the conversation above so that the work can continue from your summary alone: the earlier messages will no longer be visible. " +
    "Keep exact names, paths, commands, identifiers and numbers; leave out pleasantries and anything that no longer matters."
  const asked = instructions?.trim() ?? ""
  return asked === "" ? task : `${task}\nThe operator asks the summary to: ${asked}`
}

export const compactionSlots = (input: CompactionPromptInput): ReadonlyMap<string, string> =>
  new Map([
    ["conversation", conversationDigest(input.summarized, compactionDigestLimits(input.maxConversationChars))],
    [
      "prior_summary_section",
      input.priorSummary === undefined ? "" : `The summary of what came before (from an earlier compaction; fold it into yours):\n${input.priorSummary.trim()}\n\n`
    ],
    ["summary_task", summaryTask(input.instructions)],
    ["output_template", outputTemplate],
    [
      "todos_section",
      input.todos.length === 0 ? "" : `The session's todo list (it is kept as it is; the summary need not copy it):\n${formatTodos(input.todos)}\n\n`
    ]
  ])
