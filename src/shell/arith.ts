/**
 * The places where bash evaluates text as an arithmetic expression (`$((…))`, `((…))`, `let`,
 * array subscripts, `${x:offset:length}`, `[[ a -eq b ]]`, `declare -i`), and what makes one safe.
 *
 * Arithmetic evaluation is code: a variable named in it is itself evaluated, and a value such as
 * `a[$(cmd)]` runs `cmd` while the subscript is computed. So an expression is safe only when it
 * holds numbers, operators and names, no substitutions, quotes or subscripts; the names it uses
 * are returned so the analyzer can refuse the ones assigned on the command line with a value that
 * is not a known number.
 */

export type ArithVerdict = { readonly safe: true; readonly names: ReadonlyArray<string> } | { readonly safe: false; readonly reason: string }

const NUMBER = /^(0[xX][0-9a-fA-F]+|[0-9]+#[0-9A-Za-z@_]+|[0-9]+)/
const NAME = /^[A-Za-z_][A-Za-z0-9_]*/
const PARAM = /^\$(\{[A-Za-z_][A-Za-z0-9_]*\}|[A-Za-z_][A-Za-z0-9_]*|[0-9#?$!])/
const OPERATOR = /^(\*\*=?|<<=?|>>=?|&&|\|\||\+\+|--|[<>=!]=|[-+*/%&^|]=|[-+*/%<>=!~&^|?:,()])/

/** Judges one arithmetic expression (the text between `$((` and `))`, a `let` argument…). */
/** The tokens a safe expression is made of, each with the variable name it uses, if any. */
const TOKENS: ReadonlyArray<readonly [RegExp, (match: RegExpExecArray) => string | undefined]> = [
  [/^\s+/, () => undefined],
  [NUMBER, () => undefined],
  [PARAM, (match) => {
    const name = match[1]?.replace(/[{}]/g, "") ?? ""
    return /^[A-Za-z_]/.test(name) ? name : undefined
  }],
  [NAME, (match) => match[0]],
  [OPERATOR, () => undefined]
]

export const judgeArithmetic = (expression: string): ArithVerdict => {
  const names: Array<string> = []
  let rest = expression
  scan: while (rest.length > 0) {
    for (const [pattern, nameOf] of TOKENS) {
      const match = pattern.exec(rest)
      if (match === null) continue
      const name = nameOf(match)
      if (name !== undefined) names.push(name)
      rest = rest.slice(match[0].length)
      continue scan
    }
    const c = rest[0]
    if (c === "[") return { safe: false, reason: "evaluates an array subscript in arithmetic" }
    if (c === "$" || c === "`") return { safe: false, reason: "evaluates the output of a substitution as arithmetic" }
    return { safe: false, reason: `evaluates an arithmetic expression it cannot read (${JSON.stringify(expression.slice(0, 40))})` }
  }
  return { safe: true, names }
}

/** `name[subscript]` (as in `declare`, `read`, `printf -v`, `test -v`): the subscript, if any. */
export const subscriptOf = (text: string): string | undefined => {
  const open = text.indexOf("[")
  if (open < 0) return undefined
  const close = text.lastIndexOf("]")
  return close > open ? text.slice(open + 1, close) : text.slice(open + 1)
}

/** A subscript is safe when it is `@`, `*` or a safe arithmetic expression. */
export const judgeSubscript = (subscript: string): ArithVerdict =>
  subscript === "@" || subscript === "*" ? { safe: true, names: [] } : judgeArithmetic(subscript)

/** Transformations of `${x@OP}` that only quote or change case; `@P` runs prompt expansion. */
const SAFE_TRANSFORMS = new Set(["Q", "E", "A", "K", "a", "U", "u", "L", "k"])

export interface WordHazards {
  /** Why the word evaluates code, when it does. */
  readonly reason: string | undefined
  /** Variables whose values the word evaluates as arithmetic. */
  readonly names: ReadonlyArray<string>
}

/**
 * Scans a word's source text for expansions that evaluate text: `$((…))`, `$[…]`, `${!x}`,
 * `${x@P}`, subscripts and substring offsets. Single-quoted text is skipped; anything it cannot
 * read is reported, so a miss errs towards asking.
 */
export const scanWord = (raw: string): WordHazards => {
  const names: Array<string> = []
  let reason: string | undefined = undefined
  const judge = (verdict: ArithVerdict): void => {
    if (verdict.safe) names.push(...verdict.names)
    else reason ??= verdict.reason
  }
  let inDouble = false
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]
    if (c === "\\") {
      i++
      continue
    }
    if (c === "'" && !inDouble) {
      const end = raw.indexOf("'", i + 1)
      if (end < 0) break
      i = end
      continue
    }
    if (c === '"') {
      inDouble = !inDouble
      continue
    }
    if (c !== "$") continue
    const next = raw[i + 1]
    if (next === "(" && raw[i + 2] === "(") {
      const end = closing(raw, i + 3, "((", "))")
      judge(judgeArithmetic(raw.slice(i + 3, end)))
      i += 2
    } else if (next === "[") {
      const end = raw.indexOf("]", i + 2)
      judge(judgeArithmetic(raw.slice(i + 2, end < 0 ? raw.length : end)))
    } else if (next === "{") {
      const end = closing(raw, i + 2, "{", "}")
      const hazard = parameterHazard(raw.slice(i + 2, end))
      if (hazard !== undefined) judge(hazard)
    }
  }
  return { reason, names }
}

/** The index of the text closing a construct opened before `from` (nesting counted). */
const closing = (text: string, from: number, open: string, close: string): number => {
  let depth = 0
  for (let i = from; i < text.length; i++) {
    if (text.startsWith(open, i)) {
      depth++
      i += open.length - 1
    } else if (text.startsWith(close, i)) {
      if (depth === 0) return i
      depth--
      i += close.length - 1
    }
  }
  return text.length
}

/** What `${CONTENT}` evaluates, if anything. */
const parameterHazard = (content: string): ArithVerdict | undefined => {
  if (content.startsWith("!")) {
    // `${!prefix*}`, `${!prefix@}` and `${!array[@]}` list names or keys; any other `${!x}` is indirection.
    if (/^![A-Za-z_][A-Za-z0-9_]*([*@]|\[[@*]\])$/.test(content)) return undefined
    return { safe: false, reason: "expands a variable named by another variable (indirection)" }
  }
  const head = /^#?([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])/.exec(content)
  if (head === null) return { safe: false, reason: "uses a parameter expansion it cannot read" }
  let rest = content.slice(head[0].length)
  const verdicts: Array<ArithVerdict> = []
  if (rest.startsWith("[")) {
    const end = closing(rest, 1, "[", "]")
    verdicts.push(judgeSubscript(rest.slice(1, end)))
    rest = rest.slice(end + 1)
  }
  if (rest.startsWith("@")) {
    if (!SAFE_TRANSFORMS.has(rest.slice(1))) return { safe: false, reason: `expands ${"${…@" + rest.slice(1) + "}"}, which evaluates its value` }
  } else if (rest.startsWith(":") && !/^:[-=?+]/.test(rest)) {
    // Substring: `${x:offset}` and `${x:offset:length}` are arithmetic.
    const [offset = "", length] = splitTopLevel(rest.slice(1))
    verdicts.push(judgeArithmetic(offset))
    if (length !== undefined) verdicts.push(judgeArithmetic(length))
  }
  const unsafe = verdicts.find((verdict) => !verdict.safe)
  if (unsafe !== undefined) return unsafe
  return { safe: true, names: verdicts.flatMap((verdict) => (verdict.safe ? verdict.names : [])) }
}

const splitTopLevel = (text: string): [string, string | undefined] => {
  let depth = 0
  for (let i = 0; i < text.length; i++) {
    const c = text[i]
    if (c === "(" || c === "{" || c === "[") depth++
    else if (c === ")" || c === "}" || c === "]") depth--
    else if (c === ":" && depth === 0) return [text.slice(0, i), text.slice(i + 1)]
  }
  return [text, undefined]
}
