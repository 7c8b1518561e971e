/**
 * The glob parser of gitignore.ts (globset's, with backslash escapes on): `*` and `?` never cross
 * `/`, `**` only as a whole path component, `[...]` classes (an unclosed one is a literal `[`, as
 * gitignore has it), `{a,b}` alternates, backslash escapes.
 */

export type Token =
  | { readonly kind: "literal"; readonly char: string }
  | { readonly kind: "any" }
  | { readonly kind: "zeroOrMore" }
  | { readonly kind: "recursivePrefix" }
  | { readonly kind: "recursiveSuffix" }
  | { readonly kind: "recursiveZeroOrMore" }
  | { readonly kind: "class"; readonly negated: boolean; readonly ranges: ReadonlyArray<readonly [string, string]> }
  | { readonly kind: "alternates"; readonly branches: ReadonlyArray<ReadonlyArray<Token>> }

export class GlobSyntaxError extends Error {}

const isSeparator = (c: string | undefined): boolean => c === "/"

/** One parse: a cursor over the glob's characters and the branches of the alternate groups open at it. */
class GlobParser {
  private readonly chars: ReadonlyArray<string>
  private index = 0
  private prev: string | undefined
  private cur: string | undefined
  private readonly alternatesStack: Array<number> = []
  private readonly branches: Array<Array<Token>> = [[]]
  private foundUnclosedClass = false

  constructor(glob: string) {
    this.chars = Array.from(glob)
  }

  parse(): Array<Token> {
    for (let c = this.bump(); c !== undefined; c = this.bump()) {
      if (c === "?") this.push({ kind: "any" })
      else if (c === "*") this.star()
      else if (c === "[" && !this.foundUnclosedClass) this.characterClass()
      else if (c === "{") {
        this.alternatesStack.push(this.branches.length)
        this.branches.push([])
      } else if (c === "}") {
        const start = this.alternatesStack.pop()
        if (start === undefined) throw new GlobSyntaxError("unopened alternate group '}'")
        this.push({ kind: "alternates", branches: this.branches.splice(start) })
      } else if (c === ",") {
        if (this.alternatesStack.length === 0) this.push({ kind: "literal", char: "," })
        else this.branches.push([])
      } else if (c === "\\") {
        const escaped = this.bump()
        if (escaped === undefined) throw new GlobSyntaxError("dangling '\\'")
        this.push({ kind: "literal", char: escaped })
      } else this.push({ kind: "literal", char: c })
    }
    if (this.branches.length > 1) throw new GlobSyntaxError("unclosed alternate group '{'")
    return this.branches[0] ?? []
  }

  private bump(): string | undefined {
    this.prev = this.cur
    this.cur = this.chars[this.index++]
    return this.cur
  }

  private peek(): string | undefined {
    return this.chars[this.index]
  }

  private last(): Array<Token> {
    const branch = this.branches[this.branches.length - 1]
    if (branch === undefined) throw new GlobSyntaxError("unopened alternate group")
    return branch
  }

  private push(token: Token): void {
    this.last().push(token)
  }

  private pushTwoStars(): void {
    this.push({ kind: "zeroOrMore" })
    this.push({ kind: "zeroOrMore" })
  }

  /** After a `*`: one star, two that are not a path component, or `**` as a prefix, a suffix or in the middle. */
  private star(): void {
    const before = this.prev
    if (this.peek() !== "*") return this.push({ kind: "zeroOrMore" })
    this.bump()
    if (this.last().length === 0) {
      const next = this.peek()
      if (next !== undefined && !isSeparator(next)) return this.pushTwoStars()
      this.push({ kind: "recursivePrefix" })
      this.bump()
      return
    }
    if (!isSeparator(before) && (this.branches.length <= 1 || (before !== "," && before !== "{"))) return this.pushTwoStars()
    let isSuffix: boolean
    const next = this.peek()
    if (next === undefined) {
      this.bump()
      isSuffix = true
    } else if ((next === "," || next === "}") && this.branches.length >= 2) {
      isSuffix = true
    } else if (isSeparator(next)) {
      this.bump()
      isSuffix = false
    } else {
      return this.pushTwoStars()
    }
    const popped = this.last().pop()
    if (popped?.kind === "recursivePrefix" || popped?.kind === "recursiveSuffix") return this.push(popped)
    this.push({ kind: isSuffix ? "recursiveSuffix" : "recursiveZeroOrMore" })
  }

  /** After a `[`: the class up to its `]`, or (unclosed) a literal `[` and the cursor put back. */
  private characterClass(): void {
    const saved = { index: this.index, prev: this.prev, cur: this.cur }
    const ranges: Array<[string, string]> = []
    let negated = false
    if (this.peek() === "!" || this.peek() === "^") {
      this.bump()
      negated = true
    }
    let first = true
    let inRange = false
    for (;;) {
      const c = this.bump()
      if (c === undefined) {
        ;({ index: this.index, prev: this.prev, cur: this.cur } = saved)
        this.foundUnclosedClass = true
        return this.push({ kind: "literal", char: "[" })
      }
      if (c === "]" && !first) break
      if (c === "]" || (c === "-" && first)) ranges.push([c, c])
      else if (c === "-") {
        if (inRange) extendRange(ranges, "-")
        inRange = !inRange
      } else {
        if (inRange) extendRange(ranges, c)
        else ranges.push([c, c])
        inRange = false
      }
      first = false
    }
    if (inRange) ranges.push(["-", "-"])
    this.push({ kind: "class", negated, ranges })
  }
}

/** `a-c`: the range started by the last character gets its end. */
const extendRange = (ranges: Array<[string, string]>, c: string): void => {
  const range = ranges[ranges.length - 1]
  if (range === undefined) throw new GlobSyntaxError("invalid range")
  range[1] = c
  if ((range[1].codePointAt(0) ?? 0) < (range[0].codePointAt(0) ?? 0)) throw new GlobSyntaxError(`invalid range ${range[0]}-${range[1]}`)
}

/** Parses a glob into tokens. */
export const parseGlob = (glob: string): Array<Token> => new GlobParser(glob).parse()
