/** The named prompts (SPEC P1): each has a built-in text and can be replaced by a prompt set or a file. */
export const promptNames = [
  "work",
  "plan",
  "review",
  "review.user",
  "topic",
  "compaction.system",
  "compaction.user",
  "image.system",
  "image.user"
] as const

export type PromptName = (typeof promptNames)[number]

/** The prompts prompt attachments can extend (SPEC P7); the others are replaced whole by files. */
export const attachablePrompts = ["work", "plan", "review"] as const
export type AttachablePrompt = (typeof attachablePrompts)[number]

export const isPromptName = (value: string): value is PromptName => (promptNames as ReadonlyArray<string>).includes(value)

/** A named prompt's file, in a prompt set or a prompts directory: NAME.md, or NAME.txt. */
export const promptFileNames = (name: PromptName): readonly [string, string] => [`${name}.md`, `${name}.txt`]
