/**
 * Command lines for the differential test of Crystal's shell parser: the classifier suites'
 * lines plus a few thousand generated from a small grammar of bash (words with every kind of
 * quoting and expansion, redirections, here-documents, pipelines, lists, compound commands,
 * functions) and broken variants of them. A seeded generator, so every run sees the same corpus.
 */
import { controls, hostileLines } from "../approval/bash/hostile-corpus.ts"

/** A small deterministic PRNG (mulberry32). */
const random = (seed: number): (() => number) => {
  let state = seed >>> 0
  return () => {
    state = (state + 0x6d2b79f5) >>> 0
    let t = state
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

class Generator {
  private readonly next: () => number
  private depth = 0

  constructor(seed: number) {
    this.next = random(seed)
  }

  pick<A>(items: ReadonlyArray<A>): A {
    return items[Math.floor(this.next() * items.length)] as A
  }

  chance(p: number): boolean {
    return this.next() < p
  }

  name(): string {
    return this.pick(["ls", "cat", "grep", "echo", "printf", "git", "sed", "awk", "find", "wc", "head", "sort", "rm", "cp", "test", "true", "x", "my-tool", "./run.sh"])
  }

  piece(): string {
    const deep = this.depth < 2
    const options: Array<() => string> = [
      () => this.pick(["foo", "a.txt", "-n", "--color=auto", "src/*.ts", "x=1", "1", "-", "--", "%s\\n", "a,b", "~", "~/x", "{a,b}", "{1..3}", "a\\ b", "\\$x", "[ab]*", "x#y"]),
      () => `'${this.pick(["hello world", "$(not run)", "a\"b", "", "*", "\\n", "`x`"])}'`,
      () => `"${this.pick(["hi", "$x", "${x}", "a b", "$HOME/x", "\\\"", "$1", "${#x}", "`x`", "${x:-d}", "$@", "a'b"])}"`,
      () => this.pick(["$x", "${x}", "$1", "$@", "$?", "${x:-default}", "${x#*/}", "${x%.ts}", "${#x}", "${x/a/b}", "${arr[@]}", "${x:0:2}", "$$", "${x:+y}"]),
      () => this.pick(["$((1 + 2))", "$((x * 3))", "$'a\\tb'", "$\"t\""]),
      () => (deep ? `$(${this.pipeline()})` : "$(date)"),
      () => (deep ? `"$(${this.simple()})"` : '"$(pwd)"'),
      () => (deep ? `\`${this.pick(["date", "pwd", "echo x"])}\`` : "`date`"),
      () => (deep ? `<(${this.simple()})` : "<(ls)"),
      () => `${this.pick(["a", "pre", "x="])}${this.pick(["$x", "'q'", '"d"', "$(id)", "*"])}`
    ]
    return this.pick(options)()
  }

  word(): string {
    let text = this.piece()
    if (this.chance(0.2)) text += this.piece()
    return text
  }

  redirect(): string {
    return this.pick([">out.txt", ">> log", "2>&1", "2>/dev/null", "< in.txt", "&>all", "<<< 'here'", ">&2", "3>x", "<> rw", ">| f", "2>>err"])
  }

  simple(): string {
    const parts: Array<string> = []
    if (this.chance(0.15)) parts.push(this.pick(["A=1", "LC_ALL=C", "x=$(date)", "y='a b'", "arr=(1 2 3)", "z+=x"]))
    parts.push(this.name())
    const count = Math.floor(this.next() * 4)
    for (let i = 0; i < count; i++) parts.push(this.word())
    if (this.chance(0.25)) parts.push(this.redirect())
    return parts.join(" ")
  }

  pipeline(): string {
    const commands = [this.command()]
    while (this.chance(0.3) && commands.length < 4) commands.push(this.command())
    return `${this.chance(0.05) ? "! " : ""}${commands.join(this.pick([" | ", " |& ", "|"]))}`
  }

  list(): string {
    let text = this.pipeline()
    while (this.chance(0.35)) text += `${this.pick([" && ", " || ", "; ", " & ", "\n"])}${this.pipeline()}`
    if (this.chance(0.05)) text += " &"
    return text
  }

  command(): string {
    if (this.depth >= 3 || this.chance(0.6)) return this.simple()
    this.depth++
    try {
      return this.pick<() => string>([
        () => `(${this.list()})`,
        () => `{ ${this.list()}\n}`,
        () => `if ${this.pipeline()}; then ${this.list()}\n${this.chance(0.3) ? `elif ${this.pipeline()}; then ${this.list()}\n` : ""}${this.chance(0.4) ? `else ${this.list()}\n` : ""}fi`,
        () => `while ${this.pipeline()}; do ${this.list()}\ndone`,
        () => `until ${this.pipeline()}; do ${this.list()}\ndone`,
        () => `for f in ${this.word()} ${this.word()}; do ${this.list()}\ndone`,
        () => `for ((i = 0; i < 3; i++)); do ${this.list()}\ndone`,
        () => `case ${this.pick(["$x", "\"$1\"", "foo", "${x%.ts}", "$(date)"])} in a) ${this.list()}\n;; *.ts|b) ${this.list()}\n;; esac`,
        () => `[[ ${this.word()} == ${this.pick(["a*", "b", '"$y"'])} && -n ${this.word()} ]]`,
        () => `(( ${this.pick(["i++", "x = 1 + 2", "a < b", "n % 2"])} ))`,
        () => `f() { ${this.list()}\n}`,
        () => `function g { ${this.list()}\n}`,
        () =>
          this.chance(0.25)
            ? this.pick([`cat <<EOF\n${this.pick(["body $x", "$(date) line", "plain", "a\\$b"])}\nEOF`, `cat <<'EOF'\n${this.pick(["$(not run)", "literal $x"])}\nEOF`, `${this.simple()} <<-END\n\tindented\n\tEND`])
            : this.simple()
      ])()
    } finally {
      this.depth--
    }
  }
}

/** Ways to break a command line (most make it a syntax error). */
const breakers: ReadonlyArray<(line: string) => string> = [
  (line) => `${line} '`,
  (line) => `${line} "`,
  (line) => `(${line}`,
  (line) => `${line})`,
  (line) => `${line} |`,
  (line) => `${line} &&`,
  (line) => `if ${line}; then`,
  (line) => `for x in; do ${line}`,
  (line) => `${line} $(`,
  (line) => `${line} \${x`,
  (line) => `case x in ${line}`,
  (line) => `{ ${line}`,
  (line) => `${line} ;;`,
  (line) => `${line} fi`,
  (line) => `${line} \``,
  (line) => `; ${line}`,
  (line) => `${line} >`,
  (line) => `${line} <(`,
  (line) => `while ${line}; done`,
  (line) => `${line} || || x`
]

export const generatedLines = (count: number, seed = 16): ReadonlyArray<string> => {
  const generator = new Generator(seed)
  const lines: Array<string> = []
  for (let i = 0; i < count; i++) {
    const line = generator.list()
    lines.push(i % 30 === 29 ? generator.pick(breakers)(line) : line)
  }
  return lines
}

/** Collected lines: the classifier suites' hostile lines and controls. */
export const collectedLines: ReadonlyArray<string> = [...hostileLines.map((entry) => entry.line), ...controls]
