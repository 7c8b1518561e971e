/**
 * Which tools a mode offers, in which order (SPEC M1, M2, M5): a pure function of the session's
 * tools, the mode and the names the operator disabled. Plan offers nothing that can write: the
 * executor enforces the same rule again on every call.
 */
import type { Mode } from "../session/document.ts"
import type { Tool } from "../tools/tool.ts"

const readTools = ["read", "list", "tree", "glob", "grep", "search", "todowrite", "todoread", "question", "skill"] as const
const workOnlyTools = ["edit", "write", "bash", "bash_start", "bash_status", "bash_logs", "bash_stop"] as const

export const catalogOrder: Readonly<Record<Mode, ReadonlyArray<string>>> = {
  plan: readTools,
  work: [...readTools, ...workOnlyTools]
}

/**
 * The built-in tools this build provides, whether loaded at start-up or made per session (the
 * todo and bash tools need session services). `--disable-tool` accepts exactly these names.
 */
export const providedToolNames: ReadonlyArray<string> = [
  "read",
  "list",
  "tree",
  "glob",
  "grep",
  "search",
  "todowrite",
  "todoread",
  "question",
  "skill",
  "edit",
  "write",
  "bash",
  "bash_start",
  "bash_status",
  "bash_logs",
  "bash_stop"
]

/** Names no plugin or external tool may take, even when disabled (SPEC M5). */
export const reservedToolNames: ReadonlySet<string> = new Set([...readTools, ...workOnlyTools, "describe_image", "view_image"])

export const assembleCatalog = (
  mode: Mode,
  tools: ReadonlyMap<string, Tool>,
  disabled: ReadonlySet<string>
): ReadonlyArray<Tool> =>
  catalogOrder[mode].flatMap((name) => {
    const tool = tools.get(name)
    return tool === undefined || disabled.has(name) ? [] : [tool]
  })
