/**
 * The model-facing definitions of the file-changing tools, edit and write (SPEC T4). Loaded at
 * start-up, so it imports nothing but the parameter builder and the path classification; the
 * implementations (edit.ts, write.ts) are imported on a tool's first run.
 */
import { classifyPaths } from "../approval/classify-paths.ts"
import * as P from "./params.ts"
import { workModeOnly, toolSpec } from "./tool.ts"

/** The tools' names, each written once: the spec and its classification use it. */
const names = {
  edit: "edit",
  write: "write"
} as const

export const editSpec = toolSpec({
  name: names.edit,
  modes: workModeOnly,
  writesThroughFence: true,
  description:
    "Replace text in a file. old_string must match the file exactly, whitespace and indentation included " +
    "(without read's line-number prefixes), and only once unless replace_all: add surrounding lines to make it " +
    "unique. Read the file first. Keeps the file's line endings and encoding.",
  parameters: P.object({
    path: P.string("File path (relative to the workspace, or absolute)."),
    old_string: P.string("Exact text to replace."),
    new_string: P.string("Replacement text."),
    replace_all: P.optional(P.boolean("Replace every occurrence (default false)."))
  }),
  classify: (args, context) => classifyPaths(names.edit, "write", [args.path], context)
})

export const writeSpec = toolSpec({
  name: names.write,
  modes: workModeOnly,
  writesThroughFence: true,
  description:
    "Create or overwrite a file with exactly the given content (UTF-8), creating parent directories. " +
    "To change part of an existing file, use edit.",
  parameters: P.object({
    path: P.string("File path (relative to the workspace, or absolute)."),
    content: P.string("The whole file content.")
  }),
  classify: (args, context) => classifyPaths(names.write, "write", [args.path], context)
})
