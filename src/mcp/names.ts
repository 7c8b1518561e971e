/**
 * Tool names and descriptions as the model sees them (README "MCP servers"). Names are
 * `mcp__<server>__<tool>` in the characters every supported protocol accepts (OpenAI and
 * Anthropic: `[A-Za-z0-9_-]{1,64}`; Gemini also wants a letter or `_` first, which `mcp__` is):
 * anything else becomes `_`, and a name past 64 characters keeps its start and ends in a hash of
 * the whole, so two long names stay apart. Descriptions are clipped to a budget: every token of a
 * definition is paid on every request.
 */
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

export const mcpToolName = (server: string, tool: string): string => {
  const full = `mcp__${server}__${tool}`.replace(/[^A-Za-z0-9_-]/g, "_")
  if (full.length <= MAX_TOOL_NAME && full === `mcp__${server}__${tool}`) return full
  // Sanitised names can collide ("a.b" and "a_b"): a hash of the original keeps them apart.
  const suffix = `_${fnv1a(`${server}\u0000${tool}`).slice(0, 6)}`
  return full.length <= MAX_TOOL_NAME - suffix.length ? `${full}${suffix}` : `${full.slice(0, MAX_TOOL_NAME - suffix.length)}${suffix}`
}

export const clipDescription = (text: string | undefined, fallback: string): string => {
  const description = (text ?? "").trim() === "" ? fallback : (text ?? "").trim()
  return description.length <= MCP_DESCRIPTION_BUDGET ? description : `${description.slice(0, MCP_DESCRIPTION_BUDGET - 1)}…`
}
