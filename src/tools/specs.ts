/**
 * The model-facing definitions of the built-in tools: names, descriptions and parameters, and the
 * few limits the descriptions mention. Loaded at start-up, so it imports nothing but the
 * parameter builder; the implementations (read.ts, list.ts, tree.ts, glob.ts, grep.ts) are
 * imported on a tool's first run (see builtin.ts).
 */
import { classifyPaths } from "../approval/classify-paths.ts"
import { globBaseInput, splitGlobPattern } from "./glob-pattern.ts"
import * as P from "./params.ts"
import { everyMode, toolSpec } from "./tool.ts"
import { formatBytes } from "../text/bytes.ts"

export const READ_MAX_LINES = 2000
export const READ_MAX_BYTES = 50 * 1024
export const READ_MAX_LINE_CHARS = 2000
export const TREE_DEFAULT_DEPTH = 3
export const GREP_MAX_CONTEXT = 20

/** The tools' names, each written once: the spec and its classification use it. */
const names = {
  read: "read",
  list: "list",
  tree: "tree",
  glob: "glob",
  grep: "grep"
} as const

export const readSpec = toolSpec({
  name: names.read,
  modes: everyMode,
  description:
    `Read a text file as numbered lines (\`N<tab>text\`): up to ${READ_MAX_LINES} lines or ${formatBytes(READ_MAX_BYTES)} ` +
    `per call, then a note gives the offset to continue from; lines over ${READ_MAX_LINE_CHARS} characters are cut. ` +
    "Refuses binary files.",
  parameters: P.object({
    path: P.string("File path (relative to the workspace, or absolute)."),
    offset: P.optional(P.integer("First line, 1-based.", { minimum: 1 })),
    limit: P.optional(P.integer(`Number of lines (max ${READ_MAX_LINES}).`, { minimum: 1 }))
  }),
  classify: (args, context) => classifyPaths(names.read, "read", [args.path], context)
})

export const listSpec = toolSpec({
  name: names.list,
  modes: everyMode,
  description: "List a directory's entries: directories first (ending in /), then files; links as `name -> target`.",
  parameters: P.object({
    path: P.optional(P.string("Directory (default: workspace root)."))
  }),
  classify: (args, context) => classifyPaths(names.list, "read", [args.path ?? "."], context)
})

export const treeSpec = toolSpec({
  name: names.tree,
  modes: everyMode,
  description:
    "Show the directory tree, indented two spaces per level; directories end in /, `…` marks a non-empty directory " +
    "beyond depth. Skips .git and ignored files (.gitignore, .ignore, .rgignore).",
  parameters: P.object({
    path: P.optional(P.string("Directory (default: workspace root).")),
    depth: P.optional(P.integer(`Levels to show (default ${TREE_DEFAULT_DEPTH}).`, { minimum: 1, maximum: 50 }))
  }),
  classify: (args, context) => classifyPaths(names.tree, "read", [args.path ?? "."], context)
})

export const globSpec = toolSpec({
  name: names.glob,
  modes: everyMode,
  description:
    "Find files by path glob. Returns paths relative to the workspace, sorted; skips .git and ignored files " +
    "(.gitignore, .ignore, .rgignore).",
  parameters: P.object({
    pattern: P.string("Glob relative to `path`; `*` stays within a directory, `**` spans directories, e.g. **/*.ts or src/**/*.{ts,tsx}."),
    path: P.optional(P.string("Directory to search (default: workspace root)."))
  }),
  classify: (args, context) =>
    classifyPaths(names.glob, "read", [globBaseInput(splitGlobPattern(args.pattern.trim()), args.path ?? ".")], context, args.pattern)
})

export const grepSpec = toolSpec({
  name: names.grep,
  modes: everyMode,
  description:
    "Search file contents with a regular expression (Rust regex syntax, as ripgrep). Output: `path:line:text` per " +
    "matching line, `path-line-text` for context lines, `--` between separate groups; sorted by path. Skips .git, " +
    "binary and ignored files (.gitignore, .ignore, .rgignore).",
  parameters: P.object({
    pattern: P.string("Regular expression."),
    path: P.optional(P.string("File or directory (default: workspace root).")),
    glob: P.optional(P.string("Only files matching this glob: `*.ts` matches at any depth, `src/**/*.ts` is from the workspace root, a `!` prefix excludes.")),
    ignoreCase: P.optional(P.boolean("Case-insensitive.")),
    context: P.optional(P.integer("Lines of context before and after each match.", { minimum: 0, maximum: GREP_MAX_CONTEXT })),
    filesOnly: P.optional(P.boolean("List only paths of matching files."))
  }),
  classify: (args, context) => classifyPaths(names.grep, "read", [args.path ?? "."], context, `/${args.pattern}/`)
})
