/** `text` in at most `max` characters, an ellipsis marking a cut (never inside a surrogate pair). */
export const clip = (text: string, max: number): string => {
  if (text.length <= max) return text
  let end = Math.max(0, max - 1)
  const last = text.charCodeAt(end - 1)
  if (last >= 0xd800 && last <= 0xdbff) end--
  return `${text.slice(0, end)}…`
}

/** Line breaks, tabs and other control characters become single spaces: the text as one line, trimmed. */
export const oneLine = (text: string): string =>
  text
    .replace(/[\u0000-\u001f\u007f-\u009f]+/g, " ")
    .replace(/\s+/g, " ")
    .trim()

/** A value as JSON for a message about it, clipped to `max` characters: `"abc"`, `[1,2]`, `{"a":…`. */
export const jsonPreview = (value: unknown, max: number): string => clip(JSON.stringify(value) ?? String(value), max)
