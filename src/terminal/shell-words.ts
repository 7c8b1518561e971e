/**
 * An argv shown as a shell user reads it: a plain word bare, anything else JSON-quoted, so spaces
 * between words are the argv's own boundaries and a newline or escape inside one is spelled out
 * (`"a\nb"`), never drawn.
 */
export const shellWord = (word: string): string => (/^[\w@%+=:,./-]+$/.test(word) ? word : JSON.stringify(word))

export const shellWords = (words: ReadonlyArray<string>): string => words.map(shellWord).join(" ")
