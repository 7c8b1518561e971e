/**
 * Whether the walker would leave a workspace path out (a `.git` on the way, or an ignore file
 * between the workspace and the path says so), decided the way WalkDir decides it: for restore,
 * which must neither write nor remove a path a snapshot never records.
 */
import * as path from "node:path"
import { IgnoreMatcher, type IgnoreFileName } from "../files/walk/gitignore.ts"
import { loadAncestorIgnoreFiles } from "../files/walk/walk.ts"

/** Highest precedence first, as in the walker. */
const precedence: ReadonlyArray<IgnoreFileName> = [".rgignore", ".ignore", ".gitignore"]

/** `relative` is `/`-separated; `isDir` says whether the path itself is a folder. */
export const isIgnored = (workspace: string, relative: string, isDir: boolean): boolean => {
  const parts = relative.split("/")
  if (parts.includes(".git")) return true
  // Frames deepest first; each holds the matchers of one folder from the workspace down to the path's parent.
  const frames = loadAncestorIgnoreFiles(workspace, path.join(workspace, ...parts))
    .map((files) => ({
      relative: files.relative,
      matchers: Object.fromEntries(Object.entries(files.texts).map(([name, text]) => [name, IgnoreMatcher.parse(text)])) as Partial<Record<IgnoreFileName, IgnoreMatcher>>
    }))
    .reverse()
  for (let depth = 1; depth <= parts.length; depth++) {
    const prefix = parts.slice(0, depth).join("/")
    const prefixIsDir = depth < parts.length || isDir
    decide: for (const name of precedence) {
      for (const frame of frames) {
        if (frame.relative !== "" && !prefix.startsWith(`${frame.relative}/`)) continue
        const matcher = frame.matchers[name]
        if (matcher === undefined) continue
        const result = matcher.match(frame.relative === "" ? prefix : prefix.slice(frame.relative.length + 1), prefixIsDir)
        if (result === "ignore") return true
        if (result === "whitelist") break decide
      }
    }
  }
  return false
}
