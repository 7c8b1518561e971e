/**
 * What an ordinary hook may return, one checker per hook (seed 001's first table; docs/plugins.md).
 * Each gives the value the host uses next, `undefined` for "no change", or the rule the result
 * broke: the host then skips that result with a note naming the plugin, the hook and the rule.
 * Pure functions of the result and the host's own values, never of the argument the hook was given.
 */
import type { Classification, Risk } from "../approval/classification.ts"
import type { PluginImageData, PluginModelImage } from "./api.ts"

export type Checked<A> = { readonly _tag: "Use"; readonly value: A } | { readonly _tag: "Keep" } | { readonly _tag: "Skip"; readonly rule: string }

const use = <A>(value: A): Checked<A> => ({ _tag: "Use", value })
const keep: Checked<never> = { _tag: "Keep" }
const skip = (rule: string): Checked<never> => ({ _tag: "Skip", rule })

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> => typeof value === "object" && value !== null && !Array.isArray(value)

const describe = (value: unknown): string => (value === null ? "null" : Array.isArray(value) ? "an array" : typeof value)

/** The keys of `value` outside `allowed`, quoted, for a rule's text. */
const extraKeys = (value: Readonly<Record<string, unknown>>, allowed: ReadonlyArray<string>): string | undefined => {
  const extra = Object.keys(value).filter((key) => !allowed.includes(key))
  return extra.length === 0 ? undefined : extra.map((key) => `'${key}'`).join(", ")
}

/** An object result with only `allowed` keys, or the rule it broke. */
const objectResult = (result: unknown, allowed: ReadonlyArray<string>, what: string): Readonly<Record<string, unknown>> | string => {
  if (!isRecord(result)) return `it must return nothing or an object with ${what} (it returned ${describe(result)})`
  const extra = extraKeys(result, allowed)
  return extra === undefined ? result : `it may only return ${what}; ${extra} is not allowed`
}

export const checkPromptAppend = (result: unknown): Checked<string> => {
  if (result === undefined || result === "") return keep
  if (typeof result !== "string") return skip(`it may only return text to append to the instructions (it returned ${describe(result)}); it cannot replace the prompt`)
  return use(result)
}

export const checkUserMessage = (result: unknown): Checked<string> => {
  if (result === undefined) return keep
  const checked = objectResult(result, ["text"], "{ text }")
  if (typeof checked === "string") return skip(checked)
  if (typeof checked.text !== "string") return skip("'text' must be a string")
  if (checked.text.trim() === "") return skip("it may not leave the stored message empty")
  return use(checked.text)
}

export interface RewrittenCall {
  readonly name: string
  readonly arguments: unknown
}

export const checkToolCall = (result: unknown, call: { readonly id: string; readonly name: string; readonly arguments: unknown }): Checked<RewrittenCall> => {
  if (result === undefined) return keep
  const checked = objectResult(result, ["id", "name", "arguments"], "{ name, arguments }")
  if (typeof checked === "string") return skip(`${checked} (a hook cannot skip a call or its approval)`)
  if ("id" in checked && checked.id !== call.id) return skip("it may not change the call id")
  if ("name" in checked && (typeof checked.name !== "string" || checked.name.trim() === "")) return skip("'name' must be a tool's name")
  if ("arguments" in checked && (checked.arguments === undefined || typeof checked.arguments === "function")) return skip("'arguments' must be JSON data")
  const name = typeof checked.name === "string" ? checked.name : call.name
  const args = "arguments" in checked ? checked.arguments : call.arguments
  return use({ name, arguments: args })
}

const riskOrder: ReadonlyArray<Risk> = ["low", "medium", "high", "forbidden"]
const isRisk = (value: unknown): value is Risk => typeof value === "string" && (riskOrder as ReadonlyArray<string>).includes(value)

export interface ApprovalRaise {
  readonly risk: Risk
  readonly ask: boolean
}

/** `current` is the classification as the host (and earlier plugins' raises) left it. */
export const checkApproval = (result: unknown, current: ApprovalRaise): Checked<ApprovalRaise> => {
  if (result === undefined) return keep
  const checked = objectResult(result, ["risk", "ask"], "{ risk, ask } (raise the risk or ask for a prompt)")
  if (typeof checked === "string") return skip(`${checked}; it cannot lower the host's risk or let a call through`)
  if ("risk" in checked && checked.risk !== undefined) {
    if (!isRisk(checked.risk)) return skip(`'risk' must be one of ${riskOrder.join(", ")}`)
    if (riskOrder.indexOf(checked.risk) < riskOrder.indexOf(current.risk)) return skip(`it may not lower the risk (${current.risk} → ${checked.risk})`)
  }
  if ("ask" in checked && checked.ask !== undefined && checked.ask !== true) return skip("'ask' may only be true: a hook cannot let a call through without asking")
  return use({ risk: isRisk(checked.risk) ? checked.risk : current.risk, ask: current.ask || checked.ask === true })
}

export type ToolResultImage = PluginModelImage | PluginImageData

export interface ToolResultChange {
  readonly text: string | undefined
  readonly images: ReadonlyArray<ToolResultImage> | undefined
}

const imageMediaTypes: ReadonlyArray<string> = ["image/png", "image/jpeg", "image/gif", "image/webp"]

const imageProblem = (image: unknown, index: number): string | undefined => {
  if (!isRecord(image)) return `images[${index}] must be an object`
  if (typeof image.mediaType !== "string" || !imageMediaTypes.includes(image.mediaType)) return `images[${index}].mediaType must be one of ${imageMediaTypes.join(", ")}`
  if ("data" in image) return typeof image.data === "string" && image.data !== "" ? undefined : `images[${index}].data must be base64 text`
  return typeof image.id === "string" && image.id !== "" ? undefined : `images[${index}] must name a held image by 'id' or carry 'data'`
}

export const checkToolResult = (result: unknown): Checked<ToolResultChange> => {
  if (result === undefined) return keep
  const checked = objectResult(result, ["text", "images"], "{ text, images }")
  if (typeof checked === "string") return skip(`${checked} (a hook cannot mark a call approved)`)
  if ("text" in checked && checked.text !== undefined && typeof checked.text !== "string") return skip("'text' must be a string")
  let images: ReadonlyArray<ToolResultImage> | undefined
  if ("images" in checked && checked.images !== undefined) {
    if (!Array.isArray(checked.images)) return skip("'images' must be an array")
    const problem = checked.images.map(imageProblem).find((found) => found !== undefined)
    if (problem !== undefined) return skip(problem)
    images = checked.images as ReadonlyArray<ToolResultImage>
  }
  return use({ text: typeof checked.text === "string" ? checked.text : undefined, images })
}

/** onCompaction: before the summary request only `appendToPrompt` counts, after it only `appendToSummary`. */
export const checkCompaction = (result: unknown, phase: "prompt" | "summary"): Checked<string> => {
  if (result === undefined) return keep
  const checked = objectResult(result, ["appendToPrompt", "appendToSummary"], "{ appendToPrompt, appendToSummary } (it may only append)")
  if (typeof checked === "string") return skip(`${checked}; it cannot drop history or replace the compactor`)
  const key = phase === "prompt" ? "appendToPrompt" : "appendToSummary"
  const other = phase === "prompt" ? "appendToSummary" : "appendToPrompt"
  if (checked[other] !== undefined) {
    return skip(
      phase === "prompt"
        ? "'appendToSummary' is read when the hook is called again with the summary"
        : "'appendToPrompt' comes too late: the summary is written; it is read when the hook is called before the request"
    )
  }
  const value = checked[key]
  if (value === undefined || value === "") return keep
  if (typeof value !== "string") return skip(`'${key}' must be a string`)
  return use(value)
}

/** A raw rewrite of a text (rewritePrompt, rewriteCompaction): any string, the empty one included. */
export const checkRawText = (result: unknown): Checked<string> => {
  if (result === undefined) return keep
  return typeof result === "string" ? use(result) : skip(`it must return a string or nothing (it returned ${describe(result)})`)
}

const authorities: ReadonlyArray<string> = ["read", "write", "execute"]
const scopes: ReadonlyArray<string> = ["workspace", "granted", "outside"]
const accesses: ReadonlyArray<string> = ["read", "write"]

const pathProblem = (entry: unknown, index: number): string | undefined => {
  if (!isRecord(entry)) return `paths[${index}] must be an object`
  if (typeof entry.real !== "string" || entry.real === "") return `paths[${index}].real must be a path`
  if (typeof entry.access !== "string" || !accesses.includes(entry.access)) return `paths[${index}].access must be read or write`
  if (typeof entry.scope !== "string" || !scopes.includes(entry.scope)) return `paths[${index}].scope must be one of ${scopes.join(", ")}`
  return undefined
}

/**
 * rewriteApproval: any classification the policy can read. Fields it leaves out keep their value;
 * the host refuses only what it cannot represent. The policy still decides from the result.
 */
export const checkRawApproval = (result: unknown, current: Classification): Checked<Classification> => {
  if (result === undefined) return keep
  if (!isRecord(result)) return skip(`it must return a classification or nothing (it returned ${describe(result)})`)
  const known = ["risk", "authority", "scope", "summary", "paths", "grantKey", "protectedWrite", "ask"]
  const merged: Record<string, unknown> = { ...current }
  for (const key of known) if (key in result) merged[key] = result[key]
  if (!isRisk(merged.risk)) return skip(`'risk' must be one of ${riskOrder.join(", ")}`)
  if (typeof merged.authority !== "string" || !authorities.includes(merged.authority)) return skip(`'authority' must be one of ${authorities.join(", ")}`)
  if (typeof merged.scope !== "string" || !scopes.includes(merged.scope)) return skip(`'scope' must be one of ${scopes.join(", ")}`)
  if (typeof merged.summary !== "string") return skip("'summary' must be a string")
  if (!Array.isArray(merged.paths)) return skip("'paths' must be an array")
  const problem = merged.paths.map(pathProblem).find((found) => found !== undefined)
  if (problem !== undefined) return skip(problem)
  if (merged.ask !== undefined && merged.ask !== true && merged.ask !== false) return skip("'ask' must be true or false")
  if (merged.ask === false) delete merged.ask
  for (const key of ["grantKey", "protectedWrite"]) {
    if (merged[key] !== undefined && typeof merged[key] !== "string") return skip(`'${key}' must be a string`)
  }
  return use(merged as unknown as Classification)
}
