/**
 * A file command's prompt, filled in: `$ARGUMENTS` is the arguments as typed, `$1`…`$9` their words
 * split the way a shell splits them (quotes group, a backslash escapes; nothing is expanded), and
 * `{{name}}` Crystal's placeholders. One pass over the body: what a value inserts is never read
 * again, so an argument holding `{{env}}` or a placeholder's value holding `$1` stays as it is.
 */
import { bindPlaceholders, type PlaceholderValues } from "./placeholders.ts"

/** Shell-like words: 'single' and "double" quotes group (a backslash escapes inside double quotes and outside any). */
export const splitArguments = (text: string): ReadonlyArray<string> => {
  const words: Array<string> = []
  let word = ""
  let inWord = false
  let quote: "'" | '"' | undefined
  for (let index = 0; index < text.length; index++) {
    const char = text[index] ?? ""
    if (quote === "'") {
      if (char === "'") quote = undefined
      else word += char
      continue
    }
    if (char === "\\" && index + 1 < text.length && (quote === undefined || /["\\$`]/.test(text[index + 1] ?? ""))) {
      word += text[++index]
      inWord = true
      continue
    }
    if (quote === '"') {
      if (char === '"') quote = undefined
      else word += char
      continue
    }
    if (char === "'" || char === '"') {
      quote = char
      inWord = true
    } else if (/\s/.test(char)) {
      if (inWord) words.push(word)
      word = ""
      inWord = false
    } else {
      word += char
      inWord = true
    }
  }
  // An unclosed quote runs to the end, as the operator most likely meant.
  if (inWord) words.push(word)
  return words
}

const token = /\$ARGUMENTS|\$([1-9])|\{\{[A-Za-z_][A-Za-z0-9_.]*\}\}/g

/** Arguments given to a body that reads none are added after it, rather than dropped unseen. */
export const expandCommand = (body: string, args: string, values: PlaceholderValues, note: (text: string) => void = () => {}): string => {
  const words = splitArguments(args)
  const readsArguments = /\$ARGUMENTS|\$[1-9]/.test(body)
  const filled = body.replace(token, (whole, digit: string | undefined) => {
    if (whole === "$ARGUMENTS") return args
    if (digit !== undefined) return words[Number(digit) - 1] ?? ""
    return bindPlaceholders(whole, values, note)
  })
  return readsArguments || args === "" ? filled : `${filled.replace(/\n+$/, "")}\n\n${args}`
}
