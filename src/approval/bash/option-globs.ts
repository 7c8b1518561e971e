/**
 * Globs where a command reads options (types.ts OptionGlob): bash expands `rg foo *` to
 * `rg foo --pre=sh a b` in a directory holding a file named `--pre=sh`, and rg then runs every
 * file it searches as a shell script. The glob's directory is listed when the line is classified;
 * a match the command would read as an option that is not harmless makes the call ask.
 *
 * The listing happens now, not when the command runs: a file created in between by a process
 * running in the background is not seen (docs/security-classifier.md, known limits).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { globMatches } from "./glob-match.ts"
import type { OptionGlob } from "./types.ts"
import { clip } from "../../text/clip.ts"

/** Why one of the globs makes the call ask; undefined when every match is harmless. */
export const optionGlobReason = (globs: ReadonlyArray<OptionGlob>): string | undefined => {
  const listings = new Map<string, ReadonlyArray<string>>()
  for (const glob of globs) {
    if (glob.dir === undefined) return `the glob ${glob.display} is matched in a directory only known at run time, where a file name may be an option to ${glob.program}; put the glob after --`
    let names = listings.get(glob.dir)
    if (names === undefined) listings.set(glob.dir, (names = list(glob.dir)))
    for (const name of names) {
      if (!/^[-+]/.test(name) || !globMatches(glob.pattern, name)) continue
      if (glob.deeper ? !isDirectory(path.join(glob.dir, name)) : glob.harmless(name)) continue
      const what = glob.deeper ? `a directory named ${show(name)}` : `a file named ${show(name)}`
      const as = name.startsWith("+") ? "a command" : "an option"
      return `the glob ${glob.display} matches ${what}, which ${glob.program} would read as ${as}; put the glob after --`
    }
  }
  return undefined
}

/** The names in a directory; none when it cannot be listed (bash then passes the glob on unexpanded). */
const list = (dir: string): ReadonlyArray<string> => {
  try {
    return fs.readdirSync(dir)
  } catch {
    return []
  }
}

/** A glob with more segments descends only into directories (or symbolic links to them). */
const isDirectory = (file: string): boolean => {
  try {
    return fs.statSync(file).isDirectory()
  } catch {
    return false
  }
}

const show = (name: string): string => clip(/^[\x21-\x7e]+$/.test(name) ? name : JSON.stringify(name), 80)
