/**
 * The model-facing definition of the search tool (its implementation is search.ts, loaded on the
 * first run). Loaded at start-up, so it imports nothing but the parameter builder and the
 * classification helper, like specs.ts.
 */
import { classifyPaths } from "../approval/classify-paths.ts"
import * as P from "./params.ts"
import { everyMode, toolSpec } from "./tool.ts"

export const SEARCH_DEFAULT_LIMIT = 10
export const SEARCH_MAX_LIMIT = 50

/** The tools' names, each written once: the spec and its classification use it. */
const names = {
  search: "search"
} as const

export const searchSpec = toolSpec({
  name: names.search,
  modes: everyMode,
  description:
    "Ranked search for the files most relevant to a natural-language or keyword query (e.g. \"how is the retry-after " +
    "header parsed\", \"session store save\"): matches words in file names and contents, identifiers split on case and " +
    "punctuation, word endings ignored. Output: `path (score)` per file, best first, each with up to 3 matching lines " +
    "as `  N: text`. Skips .git, ignored (.gitignore, .ignore, .rgignore), binary, generated (source maps, minified) " +
    "and files over 1 MiB. Use grep for an exact pattern, glob for file names.",
  parameters: P.object({
    query: P.string("What to look for: words, identifiers or a question."),
    path: P.optional(P.string("Directory to search (default: workspace root).")),
    limit: P.optional(P.integer(`Files to return (default ${SEARCH_DEFAULT_LIMIT}).`, { minimum: 1, maximum: SEARCH_MAX_LIMIT }))
  }),
  classify: (args, context) => classifyPaths(names.search, "read", [args.path ?? "."], context)
})
