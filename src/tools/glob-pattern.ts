import * as path from "node:path"

/** Characters that make a path segment a glob; a backslash escape is left to the glob compiler. */
const GLOB_SEGMENT = /[*?[{\\]/

export interface GlobPattern {
  /**
   * The fixed leading directory part: the `/`-separated segments before the first one holding a
   * glob character (`* ? [ {`, or a `\` escape). "" when the pattern starts with a glob, `/` for
   * a glob right under the root; kept as written (`../x`, `/abs/dir`, `./src`). For a pattern
   * without any glob character, the whole pattern.
   */
  readonly base: string
  /** The rest, matched against paths relative to `base`; undefined when the pattern has no glob. */
  readonly glob: string | undefined
}

/** Splits a glob pattern into the directory to walk and the glob to match under it. */
export const splitGlobPattern = (pattern: string): GlobPattern => {
  const segments = pattern.split("/")
  const first = segments.findIndex((segment) => GLOB_SEGMENT.test(segment))
  if (first === -1) return { base: pattern, glob: undefined }
  const fixed = segments.slice(0, first)
  const base = fixed.join("/")
  // `/*.ts`: the only fixed segment is the empty one before the leading slash.
  return { base: base === "" && fixed.length > 0 ? "/" : base, glob: segments.slice(first).join("/") }
}

/** The directory a glob call walks: the pattern's fixed part, under `path` unless it is absolute. */
export const globBaseInput = (split: GlobPattern, searchInput: string): string =>
  split.base === "" ? searchInput : path.isAbsolute(split.base) ? split.base : path.join(searchInput, split.base)
