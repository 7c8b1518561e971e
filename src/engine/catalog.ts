/**
 * Which tools a mode offers, in which order (SPEC M1, M2, M5): a pure function of the session's
 * tools (each spec says which modes offer it), the mode, the names the operator disabled and
 * whether the active model takes images (a tool that needs image input is offered only then, I7).
 * Of the built-in tools, those every mode offers come first, so switching mode keeps the start of
 * the tool list (and a provider's prompt cache) as it was; external tools (tool sets, MCP) come
 * after every built-in one, in their own order. Plan offers nothing that can write: the approval policy
 * enforces the same rule again on every call.
 */
import type { Mode } from "../session/document.ts"
import type { Tool } from "../tools/tool.ts"

export const assembleCatalog = (mode: Mode, tools: ReadonlyArray<Tool>, disabled: ReadonlySet<string>, imageInput = false): ReadonlyArray<Tool> => {
  const offered = tools.filter((tool) => tool.modes.includes(mode) && !disabled.has(tool.name) && (imageInput || tool.needsImageInput !== true))
  const inEveryMode = (tool: Tool) => tool.modes.includes("plan") && tool.modes.includes("work")
  const builtin = offered.filter((tool) => tool.external !== true)
  return [...builtin.filter(inEveryMode), ...builtin.filter((tool) => !inEveryMode(tool)), ...offered.filter((tool) => tool.external === true)]
}
