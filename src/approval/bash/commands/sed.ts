/**
 * sed: its options (`-i`, `-e`, `-f`), and its script read for the commands that reach outside the
 * stream: `r`/`R` read a file, `w`/`W` and `s///w` write one, `e` and `s///e` run commands. A
 * script the reader cannot follow is one it cannot vouch for.
 */
import type { Arg, Handler } from "../types.ts"
import { literal, mayBeOptionAtRunTime, readAll, writeAll } from "../args.ts"

/** sed, including `-i` and the `w`, `W`, `e` and `s///e|w` commands of its script. */
/** Options a file name may be without harm: not -i (edits in place), -e/-f/-l and --expression (a script or a value from the next word). */
const harmlessSedOption = (name: string): boolean =>
  /^-[nErsuz]+$/.test(name) || ["-", "--", "--posix", "--debug", "--sandbox", "--quiet", "--silent", "--regexp-extended", "--separate", "--unbuffered", "--null-data"].includes(name)

export const sed: Handler = (a, call) => {
  const args = call.args
  const scripts: Array<Arg> = []
  const files: Array<Arg> = []
  let inPlace = false
  let scriptFile = false
  let done = false
  for (let i = 0; i < args.length; i++) {
    const arg = args[i] as Arg
    const v = arg.value
    if (done || v === undefined || v === "-" || !v.startsWith("-")) {
      if (!done) a.optionGlob(arg, "sed", harmlessSedOption)
      if (!done && mayBeOptionAtRunTime(arg)) a.raise("medium", "execute", "passes sed an argument only known at run time, which may be an option (-i edits files in place); put it after --")
      if (scripts.length === 0 && !scriptFile) scripts.push(arg)
      else files.push(arg)
      continue
    }
    if (v === "--") {
      done = true
      continue
    }
    if (v.startsWith("--")) {
      const [name, value] = v.includes("=") ? [v.slice(0, v.indexOf("=")), literal(v.slice(v.indexOf("=") + 1), arg)] : [v, undefined]
      if (name === "--expression") scripts.push(value ?? (args[++i] as Arg))
      else if (name === "--file") {
        a.read(value ?? args[++i])
        scriptFile = true
      } else if (name === "--in-place") inPlace = true
      else if (name === "--line-length") {
        if (value === undefined) i++
      }
      continue
    }
    for (let j = 1; j < v.length; j++) {
      const letter = v[j]
      const rest = v.slice(j + 1)
      if (letter === "i") {
        inPlace = true
        break
      }
      if (letter === "e" || letter === "f" || letter === "l") {
        const value = rest !== "" ? literal(rest, arg) : args[++i]
        if (letter === "e" && value !== undefined) scripts.push(value)
        if (letter === "f") {
          a.read(value)
          scriptFile = true
        }
        break
      }
    }
  }
  if (scriptFile) a.raise("medium", "execute", "runs a sed script file")
  for (const script of scripts) {
    if (script.value === undefined) {
      a.raise("medium", "execute", "runs a sed script only known at run time")
      continue
    }
    const effects = sedEffects(script.value)
    if (effects === undefined) a.raise("medium", "execute", "runs a sed script it cannot read")
    else {
      if (effects.executes) a.raise("medium", "execute", "sed runs commands")
      for (const file of effects.writes) a.write(literal(file))
      for (const file of effects.reads) a.read(literal(file))
    }
  }
  if (inPlace) writeAll(a, files, "plain", "edits files in place")
  else readAll(a, files)
}

export interface SedEffects {
  readonly writes: ReadonlyArray<string>
  readonly reads: ReadonlyArray<string>
  readonly executes: boolean
}

/** Commands that only work on the stream and the hold space: nothing to read past them. */
const STREAM_COMMANDS = new Set(["{", "=", "d", "D", "g", "G", "h", "H", "n", "N", "p", "P", "x", "z", "F"])

/** A cursor over a sed script, with the pieces of its grammar the commands are made of. */
class SedScript {
  i = 0
  readonly writes: Array<string> = []
  readonly reads: Array<string> = []
  executes = false
  readonly text: string

  constructor(text: string) {
    this.text = text
  }

  get done(): boolean {
    return this.i >= this.text.length
  }

  at(offset = 0): string | undefined {
    return this.text[this.i + offset]
  }

  skip(pattern: RegExp): void {
    while (pattern.test(this.at() ?? "")) this.i++
  }

  /** The rest of the line (a file name, a comment), trimmed; the cursor moves past its newline. */
  toLineEnd(): string {
    const end = this.text.indexOf("\n", this.i)
    const line = this.text.slice(this.i, end === -1 ? this.text.length : end)
    this.i = end === -1 ? this.text.length : end + 1
    return line.trim()
  }

  /** Moves past the next unescaped `delim`; false when the line (or the script) ends first. */
  delimited(delim: string): boolean {
    while (!this.done) {
      const c = this.at()
      if (c === "\\") this.i += 2
      else if (c === delim) {
        this.i++
        return true
      } else if (c === "\n" && delim !== "\n") return false
      else this.i++
    }
    return false
  }

  /** A line number, `$`, or a /regex/ (\cregexc) with its I and M flags; false when a regex is unterminated. */
  address(): boolean {
    const c = this.at()
    if (c === undefined) return true
    if (/[0-9]/.test(c)) {
      this.skip(/[0-9~]/)
      return true
    }
    if (c === "$") {
      this.i++
      return true
    }
    if (c !== "/" && c !== "\\") return true
    const delim = c === "\\" ? (this.at(1) ?? "") : "/"
    this.i += c === "\\" ? 2 : 1
    if (!this.delimited(delim)) return false
    this.skip(/[IM]/)
    return true
  }

  /** One address or a range of two (`a,b`, `a,+n`, `a,~n`); false when one cannot be read. */
  addresses(): boolean {
    if (!this.address()) return false
    this.skip(/ /)
    if (this.at() !== ",") return true
    this.i++
    this.skip(/ /)
    if (this.at() === "+" || this.at() === "~") this.i++
    return this.address()
  }

  /** `s`'s flags: `e` runs the pattern space, `w FILE` writes (and ends the command). */
  substituteFlags(): void {
    for (;;) {
      const flag = this.at()
      if (flag === undefined || !/[gpiImMe0-9w]/.test(flag)) return
      this.i++
      if (flag === "e") this.executes = true
      if (flag === "w") {
        this.writes.push(this.toLineEnd())
        return
      }
    }
  }

  /** The command after its addresses; false when the script cannot be read past it. */
  command(command: string): boolean {
    if (STREAM_COMMANDS.has(command)) return true
    switch (command) {
      case "l":
      case "L":
      case "q":
      case "Q":
        while (/[0-9 ]/.test(this.at() ?? "") && this.at() !== "\n") this.i++
        return true
      case "a":
      case "i":
      case "c":
        // Text to the end of the line; a trailing backslash continues it.
        for (;;) {
          const end = this.text.indexOf("\n", this.i)
          const line = this.text.slice(this.i, end === -1 ? this.text.length : end)
          this.i = end === -1 ? this.text.length : end + 1
          if (!line.endsWith("\\") || end === -1) return true
        }
      case ":":
      case "b":
      case "t":
      case "T":
      case "v":
        while (!this.done && this.at() !== "\n" && this.at() !== ";") this.i++
        return true
      case "r":
      case "R":
        this.reads.push(this.toLineEnd())
        return true
      case "w":
      case "W":
        this.writes.push(this.toLineEnd())
        return true
      case "e":
        this.executes = true
        this.toLineEnd()
        return true
      case "y": {
        const delim = this.text[this.i++]
        return delim !== undefined && this.delimited(delim) && this.delimited(delim)
      }
      case "s": {
        const delim = this.text[this.i++]
        if (delim === undefined || delim === "\n" || delim === "\\") return false
        if (!this.delimited(delim) || !this.delimited(delim)) return false
        this.substituteFlags()
        return true
      }
      default:
        return false
    }
  }
}

/** Reads a sed script for the commands that reach outside the stream; undefined when it cannot. */
export const sedEffects = (text: string): SedEffects | undefined => {
  const script = new SedScript(text)
  while (!script.done) {
    const c = script.at() as string
    if (/[\s;}]/.test(c)) {
      script.i++
      continue
    }
    if (c === "#") {
      script.toLineEnd()
      continue
    }
    if (!script.addresses()) return undefined
    script.skip(/[ !]/)
    const command = script.at()
    if (command === undefined) break
    script.i++
    if (!script.command(command)) return undefined
  }
  return { writes: script.writes.filter((file) => !["/dev/stdout", "/dev/stderr"].includes(file)), reads: script.reads, executes: script.executes }
}
