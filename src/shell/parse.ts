/**
 * A parser for the parts of bash syntax that decide what a command line does: quoting, escapes,
 * comments, lists, pipelines, subshells, groups, compound commands, functions, redirections,
 * here-documents and every kind of substitution (whose commands are parsed too). It never expands
 * or runs anything; the classifier reads the tree. Input it cannot parse raises ShellSyntaxError,
 * which the classifier turns into a conservative classification.
 */

export class ShellSyntaxError extends Error {
  override readonly name = "ShellSyntaxError"
}

export type WordPart =
  /** Literal text after quote removal; `quoted` when it came from quotes or a backslash escape. */
  | { readonly kind: "lit"; readonly text: string; readonly quoted: boolean }
  /** `$NAME`, `${NAME}`, `$1`, `$@`… without operators. */
  | { readonly kind: "param"; readonly name: string; readonly quoted: boolean }
  /** Anything known only at run time: `$(…)`, backticks, `$((…))`, `<(…)`, `${X:-…}`, arrays. */
  | { readonly kind: "dynamic"; readonly quoted: boolean }

export type SubstitutionKind = "command" | "process-in" | "process-out"

export interface Substitution {
  readonly kind: SubstitutionKind
  readonly script: Script
}

export interface Word {
  readonly parts: ReadonlyArray<WordPart>
  /** The source text of the word. */
  readonly raw: string
  /** Commands the shell runs while expanding the word, in source order (nested ones included). */
  readonly subs: ReadonlyArray<Substitution>
}

export interface Heredoc {
  readonly delimiter: string
  /** A quoted delimiter makes the body literal; otherwise it is expanded like a double-quoted string. */
  readonly quoted: boolean
  readonly body: string
  readonly subs: ReadonlyArray<Substitution>
}

export interface Redirect {
  /** The explicit file descriptor (`2>`), if any. */
  readonly fd: number | undefined
  /** `<`, `>`, `>>`, `>|`, `<>`, `<&`, `>&`, `&>`, `&>>`, `<<`, `<<-`, `<<<`. */
  readonly op: string
  /** The target word; for here-documents, the delimiter word. */
  readonly target: Word
  readonly heredoc: Heredoc | undefined
}

export interface Assignment {
  readonly name: string
  /** The value word; undefined for `X=`. Array assignments have a dynamic value. */
  readonly value: Word | undefined
}

export interface SimpleCommand {
  readonly kind: "simple"
  readonly assigns: ReadonlyArray<Assignment>
  readonly words: ReadonlyArray<Word>
  readonly redirects: ReadonlyArray<Redirect>
}

export type CompoundKeyword = "(" | "{" | "if" | "while" | "until" | "for" | "select" | "case" | "[[" | "(("

export interface CompoundCommand {
  readonly kind: "compound"
  readonly keyword: CompoundKeyword
  /** The command lists inside, in source order (conditions and bodies alike). */
  readonly lists: ReadonlyArray<Script>
  /** Words evaluated by the compound itself: `for` lists, `case` subjects and patterns, `[[ ]]`. */
  readonly words: ReadonlyArray<Word>
  /** The loop variable of `for NAME in WORDS` / `select NAME in WORDS`. */
  readonly variable: string | undefined
  readonly redirects: ReadonlyArray<Redirect>
}

export interface FunctionDefinition {
  readonly kind: "function"
  readonly name: string
  readonly body: Command
  readonly redirects: ReadonlyArray<Redirect>
}

export type Command = SimpleCommand | CompoundCommand | FunctionDefinition

export interface Pipeline {
  readonly commands: ReadonlyArray<Command>
  readonly negated: boolean
}

export interface AndOr {
  readonly pipelines: ReadonlyArray<Pipeline>
  readonly ops: ReadonlyArray<"&&" | "||">
}

export interface ListItem {
  readonly andOr: AndOr
  readonly background: boolean
}

export interface Script {
  readonly items: ReadonlyArray<ListItem>
}

/** Parses a whole command line. Throws ShellSyntaxError. */
export const parseShell = (source: string, depth = 0): Script => new Parser(source, 0, depth).parseScript()

/** Substitutions inside substitutions (each gets its own parser). */
const MAX_DEPTH = 48
/** Compound commands inside compound commands. */
const MAX_NESTING = 128

type Token =
  | { readonly t: "word"; readonly word: Word; readonly heredoc: MutableHeredoc | undefined }
  | { readonly t: "op"; readonly op: string }
  | { readonly t: "redir"; readonly op: string; readonly fd: number | undefined }
  | { readonly t: "nl" }
  | { readonly t: "eof" }

interface MutableHeredoc {
  delimiter: string
  quoted: boolean
  strip: boolean
  body: string
  subs: Array<Substitution>
}

interface Sink {
  readonly parts: Array<WordPart>
  readonly subs: Array<Substitution>
}

const OPERATORS: ReadonlyArray<string> = [
  ";;&",
  ";;",
  ";&",
  ";",
  "&&",
  "&>>",
  "&>",
  "&",
  "||",
  "|&",
  "|",
  "(",
  ")",
  "<<<",
  "<<-",
  "<<",
  "<&",
  "<>",
  "<",
  ">>",
  ">|",
  ">&",
  ">"
]
const OPERATOR_START = new Set([";", "&", "|", "(", ")", "<", ">"])
const REDIRECTIONS = new Set(["&>>", "&>", "<<<", "<<-", "<<", "<&", "<>", "<", ">>", ">|", ">&", ">"])
const WORD_BREAK = new Set([" ", "\t", "\n", "\r", ";", "&", "|", "(", ")", "<", ">"])
/** Characters that are themselves in a word and start nothing special. */
const PLAIN_RUN = /[^ \t\n\r;&|()<>\\'"`$=]+/y
const NONE: ReadonlySet<string> = new Set()
const NO_SUBS: ReadonlyArray<Substitution> = []
const STOP_PAREN: ReadonlySet<string> = new Set([")"])
const STOP_BRACE: ReadonlySet<string> = new Set(["}"])
const STOP_DO: ReadonlySet<string> = new Set(["do"])
const STOP_DONE: ReadonlySet<string> = new Set(["done"])
const STOP_THEN: ReadonlySet<string> = new Set(["then"])
const STOP_ELIF_ELSE_FI: ReadonlySet<string> = new Set(["elif", "else", "fi"])
const STOP_FI: ReadonlySet<string> = new Set(["fi"])
const STOP_DSEMI_SEMIAMP_DSEMIAMP: ReadonlySet<string> = new Set([";;", ";&", ";;&"])
const STOP_ESAC: ReadonlySet<string> = new Set(["esac"])
const SPECIAL_PARAMS = new Set(["@", "*", "#", "?", "$", "!", "-"])
const isNameStart = (c: string | undefined): boolean => c !== undefined && /[A-Za-z_]/.test(c)
const isNameChar = (c: string | undefined): boolean => c !== undefined && /[A-Za-z0-9_]/.test(c)

const pushLit = (sink: Sink, text: string, quoted: boolean): void => {
  const last = sink.parts[sink.parts.length - 1]
  if (last !== undefined && last.kind === "lit" && last.quoted === quoted) {
    sink.parts[sink.parts.length - 1] = { kind: "lit", text: last.text + text, quoted }
  } else {
    sink.parts.push({ kind: "lit", text, quoted })
  }
}

const reservedText = (token: Token): string | undefined => {
  if (token.t !== "word") return undefined
  const [part, ...rest] = token.word.parts
  return rest.length === 0 && part !== undefined && part.kind === "lit" && !part.quoted ? part.text : undefined
}

const describe = (token: Token): string =>
  token.t === "word" ? `'${token.word.raw}'` : token.t === "nl" ? "newline" : token.t === "eof" ? "end of input" : `'${token.op}'`

class Parser {
  private pos: number
  private peeked: Token | undefined = undefined
  private pending: Array<MutableHeredoc> = []
  private heredocNext: { strip: boolean } | undefined = undefined
  private nesting = 0

  private readonly src: string
  private readonly depth: number

  constructor(src: string, start: number, depth: number) {
    if (depth > MAX_DEPTH) throw new ShellSyntaxError("nesting too deep")
    this.src = src
    this.depth = depth
    this.pos = start
  }

  get position(): number {
    return this.pos
  }

  // ---------------------------------------------------------------- grammar

  parseScript(): Script {
    const script = this.parseList(NONE, NONE)
    const token = this.peek()
    if (token.t !== "eof") throw new ShellSyntaxError(`unexpected ${describe(token)}`)
    return script
  }

  /** `$( … )`: parses up to and including the closing parenthesis. */
  parseSubstitutionBody(): Script {
    const script = this.parseList(STOP_PAREN, NONE)
    this.expectOp(")")
    return script
  }

  private parseList(stopOps: ReadonlySet<string>, stopWords: ReadonlySet<string>): Script {
    const items: Array<ListItem> = []
    this.skipNewlines()
    for (;;) {
      const token = this.peek()
      if (token.t === "eof") break
      if (token.t === "op" && stopOps.has(token.op)) break
      const reserved = reservedText(token)
      if (reserved !== undefined && stopWords.has(reserved)) break
      const andOr = this.parseAndOr()
      const after = this.peek()
      if (after.t === "op" && (after.op === ";" || after.op === "&")) {
        this.next()
        items.push({ andOr, background: after.op === "&" })
        this.skipNewlines()
        continue
      }
      items.push({ andOr, background: false })
      if (after.t === "nl") {
        this.skipNewlines()
        continue
      }
      break
    }
    return { items }
  }

  private parseAndOr(): AndOr {
    const pipelines = [this.parsePipeline()]
    const ops: Array<"&&" | "||"> = []
    for (;;) {
      const token = this.peek()
      if (token.t !== "op" || (token.op !== "&&" && token.op !== "||")) break
      this.next()
      this.skipNewlines()
      ops.push(token.op)
      pipelines.push(this.parsePipeline())
    }
    return { pipelines, ops }
  }

  private parsePipeline(): Pipeline {
    let negated = false
    while (reservedText(this.peek()) === "!") {
      this.next()
      negated = !negated
    }
    const commands = [this.parseCommand()]
    for (;;) {
      const token = this.peek()
      if (token.t !== "op" || (token.op !== "|" && token.op !== "|&")) break
      this.next()
      this.skipNewlines()
      commands.push(this.parseCommand())
    }
    return { commands, negated }
  }

  private parseCommand(): Command {
    if (++this.nesting > MAX_NESTING) throw new ShellSyntaxError("nesting too deep")
    try {
      return this.parseCommandAt()
    } finally {
      this.nesting--
    }
  }

  private parseCommandAt(): Command {
    const token = this.peek()
    if (token.t === "op" && token.op === "(") {
      this.next()
      if (this.src[this.pos] === "(") {
        this.pos++
        const sink: Sink = { parts: [], subs: [] }
        const from = this.pos
        this.scanArithmetic(sink)
        return this.compound("((", [], [{ parts: [{ kind: "dynamic", quoted: false }], raw: `((${this.src.slice(from, this.pos)}`, subs: sink.subs }])
      }
      const body = this.parseList(STOP_PAREN, NONE)
      this.expectOp(")")
      return this.compound("(", [body], [])
    }
    const reserved = reservedText(token)
    switch (reserved) {
      case "{": {
        this.next()
        const body = this.parseList(NONE, STOP_BRACE)
        this.expectWord("}")
        return this.compound("{", [body], [])
      }
      case "if":
        return this.parseIf()
      case "while":
      case "until": {
        this.next()
        const condition = this.parseList(NONE, STOP_DO)
        this.expectWord("do")
        const body = this.parseList(NONE, STOP_DONE)
        this.expectWord("done")
        return this.compound(reserved, [condition, body], [])
      }
      case "for":
      case "select":
        return this.parseFor(reserved)
      case "case":
        return this.parseCase()
      case "function": {
        this.next()
        const name = this.next()
        if (name.t !== "word") throw new ShellSyntaxError(`unexpected ${describe(name)} after 'function'`)
        const open = this.peek()
        if (open.t === "op" && open.op === "(") {
          this.next()
          this.expectOp(")")
        }
        return this.parseFunctionBody(name.word.raw)
      }
      case "[[": {
        this.next()
        const words: Array<Word> = []
        for (;;) {
          const inner = this.next()
          if (inner.t === "eof") throw new ShellSyntaxError("unterminated '[['")
          if (reservedText(inner) === "]]") break
          if (inner.t === "word") words.push(inner.word)
        }
        return this.compound("[[", [], words)
      }
      case "then":
      case "elif":
      case "else":
      case "fi":
      case "do":
      case "done":
      case "esac":
      case "}":
      case "in":
      case "]]":
      case "!":
        throw new ShellSyntaxError(`unexpected '${reserved}'`)
    }
    return this.parseSimple()
  }

  private parseSimple(): Command {
    const assigns: Array<Assignment> = []
    const words: Array<Word> = []
    const redirects: Array<Redirect> = []
    for (;;) {
      const token = this.peek()
      if (token.t === "word") {
        this.next()
        const assignment = words.length === 0 ? asAssignment(token.word) : undefined
        if (assignment !== undefined) {
          assigns.push(assignment)
          continue
        }
        words.push(token.word)
        if (words.length === 1 && assigns.length === 0 && redirects.length === 0) {
          const open = this.peek()
          if (open.t === "op" && open.op === "(") {
            this.next()
            this.expectOp(")")
            return this.parseFunctionBody(token.word.raw)
          }
        }
        continue
      }
      if (token.t === "redir") {
        this.next()
        redirects.push(this.parseRedirectTarget(token))
        continue
      }
      break
    }
    if (assigns.length === 0 && words.length === 0 && redirects.length === 0) {
      throw new ShellSyntaxError(`unexpected ${describe(this.peek())}`)
    }
    return { kind: "simple", assigns, words, redirects }
  }

  private parseFunctionBody(name: string): Command {
    this.skipNewlines()
    const body = this.parseCommand()
    return { kind: "function", name, body, redirects: this.parseTrailingRedirects() }
  }

  private parseIf(): Command {
    this.next()
    const lists: Array<Script> = []
    lists.push(this.parseList(NONE, STOP_THEN))
    this.expectWord("then")
    lists.push(this.parseList(NONE, STOP_ELIF_ELSE_FI))
    for (;;) {
      const word = reservedText(this.next())
      if (word === "fi") break
      if (word === "elif") {
        lists.push(this.parseList(NONE, STOP_THEN))
        this.expectWord("then")
        lists.push(this.parseList(NONE, STOP_ELIF_ELSE_FI))
        continue
      }
      if (word === "else") {
        lists.push(this.parseList(NONE, STOP_FI))
        this.expectWord("fi")
        break
      }
      throw new ShellSyntaxError("unterminated 'if'")
    }
    return this.compound("if", lists, [])
  }

  private parseFor(keyword: "for" | "select"): Command {
    this.next()
    const words: Array<Word> = []
    let variable: string | undefined = undefined
    const open = this.peek()
    if (open.t === "op" && open.op === "(" && keyword === "for") {
      this.next()
      if (this.src[this.pos] !== "(") throw new ShellSyntaxError("expected '((' after 'for'")
      this.pos++
      const sink: Sink = { parts: [], subs: [] }
      const from = this.pos
      this.scanArithmetic(sink)
      words.push({ parts: [{ kind: "dynamic", quoted: false }], raw: `((${this.src.slice(from, this.pos)}`, subs: sink.subs })
      const separator = this.peek()
      if (separator.t === "op" && separator.op === ";") this.next()
    } else {
      const name = this.next()
      if (name.t !== "word") throw new ShellSyntaxError(`unexpected ${describe(name)} after '${keyword}'`)
      this.skipNewlines()
      if (reservedText(this.peek()) === "in") {
        this.next()
        variable = name.word.raw
        for (;;) {
          const token = this.peek()
          if (token.t === "word") {
            this.next()
            words.push(token.word)
            continue
          }
          if (token.t === "op" && token.op === ";") this.next()
          else if (token.t !== "nl") throw new ShellSyntaxError(`unexpected ${describe(token)} in '${keyword}'`)
          break
        }
      } else {
        const separator = this.peek()
        if (separator.t === "op" && separator.op === ";") this.next()
      }
    }
    this.skipNewlines()
    const opener = reservedText(this.next())
    if (opener === "{") {
      const body = this.parseList(NONE, STOP_BRACE)
      this.expectWord("}")
      return this.compound(keyword, [body], words, variable)
    }
    if (opener !== "do") throw new ShellSyntaxError(`expected 'do' in '${keyword}'`)
    const body = this.parseList(NONE, STOP_DONE)
    this.expectWord("done")
    return this.compound(keyword, [body], words, variable)
  }

  private parseCase(): Command {
    this.next()
    const subject = this.next()
    if (subject.t !== "word") throw new ShellSyntaxError(`unexpected ${describe(subject)} after 'case'`)
    const words: Array<Word> = [subject.word]
    const lists: Array<Script> = []
    this.skipNewlines()
    this.expectWord("in")
    this.skipNewlines()
    for (;;) {
      const token = this.peek()
      if (reservedText(token) === "esac") {
        this.next()
        break
      }
      if (token.t === "eof") throw new ShellSyntaxError("unterminated 'case'")
      if (token.t === "op" && token.op === "(") this.next()
      for (;;) {
        const pattern = this.next()
        if (pattern.t !== "word") throw new ShellSyntaxError(`unexpected ${describe(pattern)} in a 'case' pattern`)
        words.push(pattern.word)
        const after = this.next()
        if (after.t === "op" && after.op === "|") continue
        if (after.t === "op" && after.op === ")") break
        throw new ShellSyntaxError(`unexpected ${describe(after)} in a 'case' pattern`)
      }
      lists.push(this.parseList(STOP_DSEMI_SEMIAMP_DSEMIAMP, STOP_ESAC))
      const end = this.peek()
      if (end.t === "op" && (end.op === ";;" || end.op === ";&" || end.op === ";;&")) {
        this.next()
        this.skipNewlines()
      } else if (reservedText(end) !== "esac") {
        throw new ShellSyntaxError(`unexpected ${describe(end)} in 'case'`)
      }
    }
    return this.compound("case", lists, words)
  }

  private compound(keyword: CompoundKeyword, lists: ReadonlyArray<Script>, words: ReadonlyArray<Word>, variable?: string): CompoundCommand {
    return { kind: "compound", keyword, lists, words, variable, redirects: this.parseTrailingRedirects() }
  }

  private parseTrailingRedirects(): Array<Redirect> {
    const redirects: Array<Redirect> = []
    for (;;) {
      const token = this.peek()
      if (token.t !== "redir") return redirects
      this.next()
      redirects.push(this.parseRedirectTarget(token))
    }
  }

  private parseRedirectTarget(token: { readonly op: string; readonly fd: number | undefined }): Redirect {
    const target = this.next()
    if (target.t !== "word") throw new ShellSyntaxError(`unexpected ${describe(target)} after '${token.op}'`)
    return { fd: token.fd, op: token.op, target: target.word, heredoc: target.heredoc }
  }

  private expectOp(op: string): void {
    const token = this.next()
    if (token.t !== "op" || token.op !== op) throw new ShellSyntaxError(`expected '${op}', found ${describe(token)}`)
  }

  private expectWord(word: string): void {
    const token = this.next()
    if (reservedText(token) !== word) throw new ShellSyntaxError(`expected '${word}', found ${describe(token)}`)
  }

  private skipNewlines(): void {
    while (this.peek().t === "nl") this.next()
  }

  private peek(): Token {
    if (this.peeked === undefined) this.peeked = this.lex()
    return this.peeked
  }

  private next(): Token {
    const token = this.peek()
    this.peeked = undefined
    return token
  }

  // ---------------------------------------------------------------- lexer

  private lex(): Token {
    const src = this.src
    for (;;) {
      const c = src[this.pos]
      if (c === " " || c === "\t" || c === "\r") this.pos++
      else if (c === "\\" && src[this.pos + 1] === "\n") this.pos += 2
      else if (c === "#") {
        while (this.pos < src.length && src[this.pos] !== "\n") this.pos++
      } else break
    }
    if (this.pos >= src.length) return { t: "eof" }
    const c = src[this.pos]
    if (c === "\n") {
      this.pos++
      this.readHeredocBodies()
      return { t: "nl" }
    }
    if ((c === "<" || c === ">") && src[this.pos + 1] === "(") return this.wordToken()
    if (c !== undefined && OPERATOR_START.has(c)) {
      for (const op of OPERATORS) {
        if (src.startsWith(op, this.pos)) {
          this.pos += op.length
          if (REDIRECTIONS.has(op)) return this.redirection(op, undefined)
          return { t: "op", op }
        }
      }
    }
    return this.wordToken()
  }

  private redirection(op: string, fd: number | undefined): Token {
    if (op === "<<" || op === "<<-") this.heredocNext = { strip: op === "<<-" }
    return { t: "redir", op, fd }
  }

  private wordToken(): Token {
    const word = this.lexWord()
    const [only, ...rest] = word.parts
    const next = this.src[this.pos]
    if (
      rest.length === 0 &&
      only !== undefined &&
      only.kind === "lit" &&
      !only.quoted &&
      /^[0-9]+$/.test(only.text) &&
      (next === "<" || next === ">") &&
      this.src[this.pos + 1] !== "("
    ) {
      for (const op of OPERATORS) {
        if (REDIRECTIONS.has(op) && this.src.startsWith(op, this.pos)) {
          this.pos += op.length
          return this.redirection(op, Number(only.text))
        }
      }
    }
    let heredoc: MutableHeredoc | undefined = undefined
    if (this.heredocNext !== undefined) {
      heredoc = {
        delimiter: word.parts.map((part) => (part.kind === "lit" ? part.text : part.kind === "param" ? `$${part.name}` : "")).join(""),
        quoted: word.parts.some((part) => part.quoted),
        strip: this.heredocNext.strip,
        body: "",
        subs: []
      }
      this.heredocNext = undefined
      this.pending.push(heredoc)
    }
    return { t: "word", word, heredoc }
  }

  private readHeredocBodies(): void {
    const src = this.src
    for (const heredoc of this.pending) {
      const lines: Array<string> = []
      while (this.pos < src.length) {
        const end = src.indexOf("\n", this.pos)
        const raw = src.slice(this.pos, end === -1 ? src.length : end)
        this.pos = end === -1 ? src.length : end + 1
        const line = heredoc.strip ? raw.replace(/^\t+/, "") : raw
        if (line === heredoc.delimiter || line.replace(/\r$/, "") === heredoc.delimiter) break
        lines.push(line)
      }
      heredoc.body = lines.length === 0 ? "" : lines.join("\n") + "\n"
      if (!heredoc.quoted) {
        const inner = new Parser(heredoc.body, 0, this.depth + 1)
        const sink: Sink = { parts: [], subs: heredoc.subs }
        inner.scanDoubleQuoted(sink, "heredoc")
      }
    }
    this.pending = []
  }

  private lexWord(): Word {
    const src = this.src
    const start = this.pos
    // Fast path: a run of plain characters ending the word.
    PLAIN_RUN.lastIndex = start
    const plain = PLAIN_RUN.exec(src)
    if (plain !== null) {
      const after = src[start + plain[0].length]
      if (after === undefined || (WORD_BREAK.has(after) && !((after === "<" || after === ">") && src[start + plain[0].length + 1] === "("))) {
        this.pos = start + plain[0].length
        return { parts: [{ kind: "lit", text: plain[0], quoted: false }], raw: plain[0], subs: NO_SUBS }
      }
    }
    const sink: Sink = { parts: [], subs: [] }
    for (;;) {
      const c = src[this.pos]
      if (c === undefined) break
      if ((c === "<" || c === ">") && this.pos === start && src[this.pos + 1] === "(") {
        this.pos += 2
        sink.subs.push({ kind: c === "<" ? "process-in" : "process-out", script: this.subParse() })
        sink.parts.push({ kind: "dynamic", quoted: false })
        continue
      }
      if (WORD_BREAK.has(c)) break
      if (c === "\\") {
        const n = src[this.pos + 1]
        if (n === "\n") this.pos += 2
        else if (n === undefined) {
          pushLit(sink, "\\", false)
          this.pos++
        } else {
          pushLit(sink, n, true)
          this.pos += 2
        }
        continue
      }
      if (c === "'") {
        const end = src.indexOf("'", this.pos + 1)
        if (end === -1) throw new ShellSyntaxError("unterminated single quote")
        pushLit(sink, src.slice(this.pos + 1, end), true)
        this.pos = end + 1
        continue
      }
      if (c === '"') {
        this.pos++
        this.scanDoubleQuoted(sink, "double")
        continue
      }
      if (c === "`") {
        this.scanBackticks(sink, false)
        continue
      }
      if (c === "$") {
        this.scanDollar(sink, false)
        continue
      }
      if (c === "=" && src[this.pos + 1] === "(" && isArrayAssignmentHead(sink.parts)) {
        pushLit(sink, "=", false)
        this.pos += 2
        this.scanArrayElements(sink)
        continue
      }
      PLAIN_RUN.lastIndex = this.pos
      const run = PLAIN_RUN.exec(src)
      const text = run === null ? c : run[0]
      pushLit(sink, text, false)
      this.pos += text.length
    }
    if (this.pos === start) throw new ShellSyntaxError(`unexpected character '${src[start] ?? ""}'`)
    return { parts: sink.parts, raw: src.slice(start, this.pos), subs: sink.subs }
  }

  private scanArrayElements(sink: Sink): void {
    for (;;) {
      const c = this.src[this.pos]
      if (c === undefined) throw new ShellSyntaxError("unterminated array assignment")
      if (c === " " || c === "\t" || c === "\n" || c === "\r") {
        this.pos++
        continue
      }
      if (c === "#") {
        while (this.pos < this.src.length && this.src[this.pos] !== "\n") this.pos++
        continue
      }
      if (c === ")") {
        this.pos++
        sink.parts.push({ kind: "dynamic", quoted: false })
        return
      }
      const element = this.lexWord()
      sink.subs.push(...element.subs)
    }
  }

  /** After the opening quote (or over a whole here-document body). Consumes the closing quote. */
  scanDoubleQuoted(sink: Sink, mode: "double" | "heredoc"): void {
    const src = this.src
    for (;;) {
      const c = src[this.pos]
      if (c === undefined) {
        if (mode === "heredoc") return
        throw new ShellSyntaxError("unterminated double quote")
      }
      if (c === '"' && mode === "double") {
        this.pos++
        // Keep an empty quoted string as a word part, so `""` is an empty argument.
        pushLit(sink, "", true)
        return
      }
      if (c === "\\") {
        const n = src[this.pos + 1]
        if (n === "\n") this.pos += 2
        else if (n !== undefined && (n === "$" || n === "`" || n === "\\" || (n === '"' && mode === "double"))) {
          pushLit(sink, n, true)
          this.pos += 2
        } else {
          pushLit(sink, "\\", true)
          this.pos++
        }
        continue
      }
      if (c === "$") {
        this.scanDollar(sink, true)
        continue
      }
      if (c === "`") {
        this.scanBackticks(sink, true)
        continue
      }
      pushLit(sink, c, true)
      this.pos++
    }
  }

  private scanDollar(sink: Sink, quoted: boolean): void {
    const src = this.src
    const n = src[this.pos + 1]
    if (n === "(") {
      if (src[this.pos + 2] === "(" && this.arithmeticCloses(this.pos + 3)) {
        this.pos += 3
        this.scanArithmetic(sink)
      } else {
        this.pos += 2
        sink.subs.push({ kind: "command", script: this.subParse() })
      }
      sink.parts.push({ kind: "dynamic", quoted })
      return
    }
    if (n === "{") {
      this.pos += 2
      const start = this.pos
      const inner: Sink = { parts: [], subs: sink.subs }
      for (;;) {
        const c = src[this.pos]
        if (c === undefined) throw new ShellSyntaxError("unterminated '${'")
        if (c === "}") break
        if (c === "\\") this.pos += 2
        else if (c === "'" && !quoted) {
          const end = src.indexOf("'", this.pos + 1)
          if (end === -1) throw new ShellSyntaxError("unterminated single quote")
          this.pos = end + 1
        } else if (c === '"') {
          this.pos++
          this.scanDoubleQuoted(inner, "double")
        } else if (c === "$") this.scanDollar(inner, true)
        else if (c === "`") this.scanBackticks(inner, true)
        else this.pos++
      }
      const content = src.slice(start, this.pos)
      this.pos++
      if (/^([A-Za-z_][A-Za-z0-9_]*|[0-9]+|[@*#?$!-])$/.test(content)) sink.parts.push({ kind: "param", name: content, quoted })
      else sink.parts.push({ kind: "dynamic", quoted })
      return
    }
    if (n === "[") {
      // `$[expr]`: bash's old spelling of `$((expr))`.
      // Substitutions inside are collected (and analyzed) like those of `$((…))`.
      const inner: Sink = { parts: [], subs: sink.subs }
      let depth = 0
      this.pos += 2
      for (;;) {
        const c = src[this.pos]
        if (c === undefined) throw new ShellSyntaxError("unterminated '$['")
        if (c === "]" && depth === 0) break
        if (c === "[") depth++
        if (c === "]") depth--
        if (c === "$") this.scanDollar(inner, true)
        else if (c === "`") this.scanBackticks(inner, true)
        else this.pos++
      }
      this.pos++
      sink.parts.push({ kind: "dynamic", quoted })
      return
    }
    if (n === "'" && !quoted) {
      this.pos += 2
      pushLit(sink, this.scanAnsiC(), true)
      return
    }
    if (n === '"' && !quoted) {
      this.pos += 2
      this.scanDoubleQuoted(sink, "double")
      return
    }
    if (isNameStart(n)) {
      let end = this.pos + 1
      while (isNameChar(src[end])) end++
      sink.parts.push({ kind: "param", name: src.slice(this.pos + 1, end), quoted })
      this.pos = end
      return
    }
    if (n !== undefined && (/[0-9]/.test(n) || SPECIAL_PARAMS.has(n))) {
      sink.parts.push({ kind: "param", name: n, quoted })
      this.pos += 2
      return
    }
    pushLit(sink, "$", quoted)
    this.pos++
  }

  private scanAnsiC(): string {
    const src = this.src
    let text = ""
    for (;;) {
      const c = src[this.pos]
      if (c === undefined) throw new ShellSyntaxError("unterminated $'…' string")
      if (c === "'") {
        this.pos++
        return text
      }
      if (c !== "\\") {
        text += c
        this.pos++
        continue
      }
      const n = src[this.pos + 1]
      this.pos += 2
      const simple: Record<string, string> = {
        n: "\n",
        t: "\t",
        r: "\r",
        a: "\x07",
        b: "\b",
        e: "\x1b",
        E: "\x1b",
        f: "\f",
        v: "\v",
        "\\": "\\",
        "'": "'",
        '"': '"',
        "?": "?"
      }
      if (n === undefined) throw new ShellSyntaxError("unterminated $'…' string")
      const mapped = simple[n]
      if (mapped !== undefined) {
        text += mapped
      } else if (n === "x" || n === "u" || n === "U") {
        const max = n === "x" ? 2 : n === "u" ? 4 : 8
        let hex = ""
        while (hex.length < max && /[0-9a-fA-F]/.test(src[this.pos] ?? "")) hex += src[this.pos++]
        if (hex === "") text += `\\${n}`
        else {
          const code = Number.parseInt(hex, 16)
          text += code <= 0x10ffff ? String.fromCodePoint(code) : ""
        }
      } else if (/[0-7]/.test(n)) {
        let oct = n
        while (oct.length < 3 && /[0-7]/.test(src[this.pos] ?? "")) oct += src[this.pos++]
        text += String.fromCharCode(Number.parseInt(oct, 8) & 0xff)
      } else if (n === "c") {
        const ch = src[this.pos++]
        if (ch === undefined) throw new ShellSyntaxError("unterminated $'…' string")
        text += String.fromCharCode(ch.charCodeAt(0) & 0x1f)
      } else {
        text += `\\${n}`
      }
    }
  }

  private scanBackticks(sink: Sink, quoted: boolean): void {
    const src = this.src
    this.pos++
    let text = ""
    for (;;) {
      const c = src[this.pos]
      if (c === undefined) throw new ShellSyntaxError("unterminated backquote")
      if (c === "`") {
        this.pos++
        break
      }
      const n = src[this.pos + 1]
      if (c === "\\" && n !== undefined && (n === "$" || n === "`" || n === "\\" || (quoted && n === '"'))) {
        text += n
        this.pos += 2
        continue
      }
      text += c
      this.pos++
    }
    sink.subs.push({ kind: "command", script: new Parser(text, 0, this.depth + 1).parseScript() })
    sink.parts.push({ kind: "dynamic", quoted })
  }

  /**
   * Whether the text after `$((` is an arithmetic expansion: bash reads `$((cmd) …)` as a command
   * substitution of a subshell when no `))` closes the arithmetic.
   */
  private arithmeticCloses(from: number): boolean {
    // Remembered per position: a trial scan meets every nested `$((` again, and without this each
    // level of nesting would double the work (a hostile line of 30 levels would never finish).
    const known = this.arithmeticAt.get(from)
    if (known !== undefined) return known
    const closes = this.tryArithmetic(from)
    this.arithmeticAt.set(from, closes)
    return closes
  }

  private readonly arithmeticAt = new Map<number, boolean>()

  private tryArithmetic(from: number): boolean {
    const saved = this.pos
    this.pos = from
    try {
      this.scanArithmetic({ parts: [], subs: [] })
      return true
    } catch (error) {
      if (error instanceof ShellSyntaxError) return false
      throw error
    } finally {
      this.pos = saved
    }
  }

  /** After `$((` or `((`: up to and including the closing `))`, collecting substitutions inside. */
  private scanArithmetic(sink: Sink): void {
    const src = this.src
    const inner: Sink = { parts: [], subs: sink.subs }
    let depth = 0
    for (;;) {
      const c = src[this.pos]
      if (c === undefined) throw new ShellSyntaxError("unterminated arithmetic expression")
      if (c === "(") {
        depth++
        this.pos++
      } else if (c === ")") {
        if (depth > 0) {
          depth--
          this.pos++
        } else if (src[this.pos + 1] === ")") {
          this.pos += 2
          return
        } else {
          throw new ShellSyntaxError("unbalanced parentheses in an arithmetic expression")
        }
      } else if (c === "$") this.scanDollar(inner, true)
      else if (c === "`") this.scanBackticks(inner, true)
      else if (c === '"') {
        this.pos++
        this.scanDoubleQuoted(inner, "double")
      } else if (c === "'") {
        const end = src.indexOf("'", this.pos + 1)
        if (end === -1) throw new ShellSyntaxError("unterminated single quote")
        this.pos = end + 1
      } else this.pos++
    }
  }

  private subParse(): Script {
    const inner = new Parser(this.src, this.pos, this.depth + 1)
    const script = inner.parseSubstitutionBody()
    this.pos = inner.position
    return script
  }
}

const isArrayAssignmentHead = (parts: ReadonlyArray<WordPart>): boolean => {
  const [only, ...rest] = parts
  return rest.length === 0 && only !== undefined && only.kind === "lit" && !only.quoted && /^[A-Za-z_][A-Za-z0-9_]*\+?$/.test(only.text)
}

const asAssignment = (word: Word): Assignment | undefined => {
  const [first, ...rest] = word.parts
  if (first === undefined || first.kind !== "lit" || first.quoted) return undefined
  const match = /^([A-Za-z_][A-Za-z0-9_]*)(\[[^\]]*\])?\+?=/.exec(first.text)
  if (match === null) return undefined
  const remainder = first.text.slice(match[0].length)
  const parts: Array<WordPart> = remainder === "" ? [...rest] : [{ kind: "lit", text: remainder, quoted: false }, ...rest]
  const name = match[1] ?? ""
  return {
    name,
    value: parts.length === 0 && word.subs.length === 0 ? undefined : { parts, raw: word.raw.slice(word.raw.indexOf("=") + 1), subs: word.subs }
  }
}
