/**
 * Tool names and descriptions as the model sees them (README "MCP servers"). Names are
 * `mcp__<server>__<tool>` in the characters every supported protocol accepts (OpenAI and
 * Anthropic: `[A-Za-z0-9_-]{1,64}`; Gemini also wants a letter or `_` first, which `mcp__` is):
 * anything else becomes `_`, and a name past 64 characters keeps its start and ends in a hash of
 * the whole, so two long names stay apart; a name another server's tool already has gets such a hash
 * too (distinctToolName), so the catalog never offers two tools of one name. Descriptions are clipped to a budget: every token of a
 * definition is paid on every request.
 */
import { clip } from "../text/clip.ts"
export const MAX_TOOL_NAME = 64
/** Characters of a tool's description sent to the model. */
export const MCP_DESCRIPTION_BUDGET = 1024

const fnv1a = (text: string): string => {
  let hash = 0x811c9dc5
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i)
    hash = Math.imul(hash, 0x01000193)
  }
  return (hash >>> 0).toString(16).padStart(8, "0")
}

const sanitised = (server: string, tool: string): string => `mcp__${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_")

/** `full` ending in `_<hash>`, clipped so that the whole stays within MAX_TOOL_NAME. */
const withHash = (full: string, key: string): string => {
  const suffix = `_${fnv1a(key).slice(0, 6)}`
  return full.length <= MAX_TOOL_NAME - suffix.length ? `${full}${suffix}` : `${full.slice(0, MAX_TOOL_NAME - suffix.length)}${suffix}`
}

export const mcpToolName = (server: string, tool: string): string => {
  const full = sanitised(server, tool)
  if (full.length <= MAX_TOOL_NAME && full === `mcp__${server}__${tool}`) return full
  // Sanitised names can collide ("a.b" and "a_b"): a hash of the original keeps them apart.
  return withHash(full, `${server}\u0000${tool}`)
}

/**
 * `mcpToolName`, or, when another tool already has that name (server `a`'s tool `b__c` and server
 * `a__b`'s tool `c` are both `mcp__a__b__c`; two clipped names can meet too), the name ending in a
 * hash of this server and tool (and of a counter, should that be taken as well).
 */
export const distinctToolName = (server: string, tool: string, taken: { readonly has: (name: string) => boolean }): string => {
  const name = mcpToolName(server, tool)
  if (!taken.has(name)) return name
  for (let attempt = 0; ; attempt++) {
    const candidate = withHash(sanitised(server, tool), `${server}\u0000${tool}${attempt === 0 ? "" : `\u0000${attempt}`}`)
    if (!taken.has(candidate)) return candidate
  }
}

export const clipDescription = (text: string | undefined, fallback: string): string => {
  const description = (text ?? "").trim() === "" ? fallback : (text ?? "").trim()
  return clip(description, MCP_DESCRIPTION_BUDGET)
}
