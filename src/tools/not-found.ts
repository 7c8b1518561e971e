/** Errors for paths that do not exist, with "did you mean" suggestions from the same directory. */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { ToolError, type ToolContext } from "./tool.ts"

/** Edit distance counting a swap of two neighbouring characters as one edit (optimal string alignment). */
const editDistance = (a: string, b: string): number => {
  const rows: Array<Array<number>> = Array.from({ length: a.length + 1 }, (_, i) => Array.from({ length: b.length + 1 }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)))
  const at = (i: number, j: number): number => rows[i]?.[j] ?? 0
  for (let i = 1; i <= a.length; i++) {
    const row = rows[i] ?? []
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      let best = Math.min(at(i - 1, j) + 1, at(i, j - 1) + 1, at(i - 1, j - 1) + cost)
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) best = Math.min(best, at(i - 2, j - 2) + 1)
      row[j] = best
    }
  }
  return at(a.length, b.length)
}

const stem = (name: string): string => {
  const dot = name.lastIndexOf(".")
  return dot > 0 ? name.slice(0, dot) : name
}

/** Names in `dir` that look like `name` (typo, case, other extension), best first. */
export const similarNames = async (dir: string, name: string, limit = 3): Promise<Array<string>> => {
  let entries: Array<string>
  try {
    entries = await fs.readdir(dir)
  } catch {
    return []
  }
  const wanted = name.toLowerCase()
  const scored: Array<readonly [string, number]> = []
  for (const entry of entries) {
    const candidate = entry.toLowerCase()
    const distance = editDistance(wanted, candidate)
    const close = distance <= Math.max(1, Math.floor(Math.max(wanted.length, candidate.length) / 4))
    const sameStem = stem(candidate) === stem(wanted) && stem(wanted) !== ""
    const contains = wanted.length >= 3 && candidate.length >= 3 && (candidate.includes(wanted) || wanted.includes(candidate))
    if (close || sameStem || contains) scored.push([entry, close ? distance : sameStem ? distance / 10 + 1 : distance + 10])
  }
  scored.sort((x, y) => x[1] - y[1] || (x[0] < y[0] ? -1 : 1))
  return scored.slice(0, limit).map(([entry]) => entry)
}

/** The error for a path that does not exist, naming similar files in the same directory. */
/** `advice` ends the message (e.g. what to use instead). */
export const notFoundError = async (context: ToolContext, real: string, display: string, what: string, advice = ""): Promise<ToolError> => {
  const dir = path.dirname(real)
  try {
    const stat = await fs.stat(dir)
    if (!stat.isDirectory()) return new ToolError({ message: `${what} not found: ${display} (${context.fence.display(dir)} is not a directory).` })
  } catch {
    return new ToolError({ message: `${what} not found: ${display} (directory ${context.fence.display(dir)} does not exist).${advice}` })
  }
  const similar = await similarNames(dir, path.basename(real))
  const hint = similar.length === 0 ? "" : ` Did you mean ${similar.map((name) => context.fence.display(path.join(dir, name))).join(" or ")}?`
  return new ToolError({ message: `${what} not found: ${display}.${hint}${advice}` })
}

/** `fs.stat`, turning a missing path into the not-found ToolError. */
export const statOrNotFound = async (context: ToolContext, real: string, display: string, what: string, advice = "") => {
  try {
    return await fs.stat(real)
  } catch (error) {
    const code = typeof error === "object" && error !== null && "code" in error ? error.code : undefined
    if (code === "ENOENT" || code === "ENOTDIR") throw await notFoundError(context, real, display, what, advice)
    throw error
  }
}
