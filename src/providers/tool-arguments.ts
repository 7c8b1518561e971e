/**
 * Tool-call arguments come from the model: any text, any depth. Every adapter decodes them here
 * and the executor reads the result, so one depth limit serves all. Nesting is measured without
 * recursion (a recursive walk or JSON.stringify of a value 50,000 levels deep overflows the stack),
 * and arguments deeper than the limit never travel further: they are replaced by a short marker,
 * so the transcript, the session file and the next request never hold them.
 */
import { jsonTextTooDeep, valueTooDeep } from "../files/json-depth.ts"

/** Far deeper than any tool's schema; shallow enough for every recursive walk downstream. */
export const maxArgumentDepth = 64

/** What replaces arguments nested deeper than the limit (not JSON, so no encoder mistakes it for an object). */
export const tooDeepArguments = `<arguments nested deeper than ${maxArgumentDepth} levels were dropped>`

/**
 * Arguments sent as JSON text: empty means "no arguments"; invalid JSON is kept as the raw string
 * for the engine to report; nesting past the limit becomes `tooDeepArguments`.
 */
export const parseToolArguments = (raw: string): unknown => {
  if (raw.trim() === "") return {}
  if (jsonTextTooDeep(raw, maxArgumentDepth)) return tooDeepArguments
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}

/** Arguments an SDK already parsed (Gemini, Ollama): kept unless they nest past the limit. */
export const boundToolArguments = (value: unknown): unknown => (valueTooDeep(value, maxArgumentDepth) ? tooDeepArguments : value)

/** What the model is told when its arguments could not be used as an object; undefined when they can. */
export const argumentsProblem = (toolName: string, args: unknown): string | undefined => {
  if (args === tooDeepArguments || (typeof args === "string" && jsonTextTooDeep(args, maxArgumentDepth)) || valueTooDeep(args, maxArgumentDepth)) {
    return `${toolName}: the arguments nest deeper than ${maxArgumentDepth} levels; send one JSON object matching the tool's schema`
  }
  if (typeof args === "string") {
    return `${toolName}: the arguments were not valid JSON; send one JSON object matching the tool's schema`
  }
  return undefined
}
