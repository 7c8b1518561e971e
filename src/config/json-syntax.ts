/**
 * Where a JSON text first goes wrong, as line and column: JSON.parse's own messages differ between
 * runtimes and often give no position at all. Only called after JSON.parse has failed.
 */
export interface JsonSyntaxProblem {
  readonly line: number
  readonly column: number
  readonly found: string
}

class SyntaxStop {
  readonly offset: number
  constructor(offset: number) {
    this.offset = offset
  }
}

const numberPattern = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y
const stringPattern = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y

const scan = (text: string): void => {
  let at = 0
  const stop = (): never => {
    throw new SyntaxStop(at)
  }
  const space = () => {
    while (at < text.length && " \t\n\r".includes(text[at] ?? "")) at++
  }
  const match = (pattern: RegExp) => {
    pattern.lastIndex = at
    if (!pattern.test(text)) stop()
    at = pattern.lastIndex
  }
  const expect = (char: string) => {
    if (text[at] !== char) stop()
    at++
  }
  const sequence = (close: string, item: () => void) => {
    at++
    space()
    if (text[at] === close) {
      at++
      return
    }
    for (;;) {
      item()
      space()
      if (text[at] === close) {
        at++
        return
      }
      expect(",")
      space()
    }
  }
  const value = (): void => {
    space()
    const char = text[at]
    if (char === "{") {
      sequence("}", () => {
        match(stringPattern)
        space()
        expect(":")
        value()
      })
    } else if (char === "[") {
      sequence("]", value)
    } else if (char === '"') {
      match(stringPattern)
    } else {
      for (const literal of ["true", "false", "null"]) {
        if (text.startsWith(literal, at)) {
          at += literal.length
          return
        }
      }
      match(numberPattern)
    }
  }
  value()
  space()
  if (at < text.length) stop()
}

export const locateJsonSyntaxError = (text: string): JsonSyntaxProblem | undefined => {
  try {
    scan(text)
    return undefined
  } catch (error) {
    if (!(error instanceof SyntaxStop)) throw error
    const before = text.slice(0, error.offset)
    const line = before.split("\n").length
    const column = error.offset - before.lastIndexOf("\n")
    const found = error.offset >= text.length ? "end of file" : JSON.stringify(text.slice(error.offset, error.offset + 12))
    return { line, column, found }
  }
}
