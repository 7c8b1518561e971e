/**
 * What a trusted command line names, for the trust hash and the trust question (MCP servers and
 * tool sets alike): the words that may be workspace files, and the arguments that are inline code.
 *
 * A word ends at white space, at `=` and `:` (`--require=./x.cjs`, a PATH), and at what ends one
 * in a shell or in the code an interpreter is given: `;`, `|`, `&`, `<`, `>`, parentheses, braces,
 * quotes, backquotes, `$` and `,`. So `sh -c './a.sh;true'` and `node -e "require('./x.cjs')"`
 * name `./a.sh` and `./x.cjs`. Inline code can still reach files without naming them (a glob, a
 * computed path, an import inside a named file): the question says so for each such argument.
 */
import * as path from "node:path"

const envReference = /\$\{env:[A-Za-z_][A-Za-z0-9_]*\}/g
const wordBreaks = /[\s=:;|&<>(){}'"`$,]+/

/** The words of `text` that could name a file: options (`-x`) and `${env:…}` references left out. */
export const fileWords = (text: string): ReadonlyArray<string> =>
  text
    .replace(envReference, " ")
    .split(wordBreaks)
    .filter((word) => word !== "" && !word.startsWith("-"))

/** The options after which an interpreter takes code to run, by the program's name. */
const codeFlag = (program: string): RegExp | undefined => {
  if (/^(ba|da|z|k|a|mk|lk|pdk)?sh$|^fish$|^busybox$/.test(program)) return /^-[A-Za-z]*c[A-Za-z]*$/
  if (/^(node(js)?|bun)$/.test(program)) return /^(-e|--eval|-p|--print)$/
  if (program === "deno") return /^eval$/
  if (/^(python|pypy)[\d.]*$/.test(program)) return /^-[A-Za-z]*c$/
  if (/^(perl|ruby)[\d.]*$/.test(program)) return /^-[A-Za-z]*[eE]$/
  if (/^php[\d.]*$/.test(program)) return /^-r$/
  if (/^(pwsh|powershell)$/.test(program)) return /^-(c|command)$/i
  if (/^osascript$/.test(program)) return /^-e$/
  return undefined
}

/**
 * The arguments of `argv` an interpreter runs as code (`sh -c CODE`, `node -e CODE`, `python -c
 * CODE`…), after an `env` prefix and its assignments.
 */
export const inlineCode = (argv: ReadonlyArray<string>): ReadonlyArray<string> => {
  let start = 0
  if (path.basename(argv[0] ?? "") === "env") {
    start = 1
    while (start < argv.length && (/^[A-Za-z_][A-Za-z0-9_]*=/.test(argv[start] ?? "") || (argv[start] ?? "").startsWith("-"))) start++
  }
  const flag = codeFlag(path.basename(argv[start] ?? ""))
  if (flag === undefined) return []
  const code: Array<string> = []
  for (let i = start + 1; i < argv.length - 1; i++) if (flag.test(argv[i] ?? "")) code.push(argv[i + 1] ?? "")
  return code
}

/** The question's line for a command line that runs inline code; undefined when it runs none. */
export const inlineCodeNote = (argv: ReadonlyArray<string>): string | undefined =>
  inlineCode(argv).length === 0
    ? undefined
    : "runs inline code: trusting covers the workspace files it names, not files it reaches otherwise (a glob, a computed path, an import)"
