/**
 * Checks what a plugin's entry module default-exports against the Plugin shape (src/plugins/api.ts)
 * and returns a clean copy: only known hook names, only functions, only placeholders with good
 * names. A wrong shape (not an object, a bad `name`, `hooks` that is not an object, a known hook
 * that is not a function) rejects the plugin; an unknown hook key or a bad placeholder is a note and
 * that key alone is ignored.
 */
import { hookNames, rawHookNames, type Plugin, type PluginHooks, type PluginRawHooks } from "./api.ts"

export const placeholderNamePattern = /^[a-z][a-z0-9_]*$/

export type ShapeCheck =
  | { readonly _tag: "Plugin"; readonly plugin: Plugin & { readonly name: string }; readonly notes: ReadonlyArray<string> }
  /** `why` completes "the default export …". */
  | { readonly _tag: "Wrong"; readonly why: string }

type Callable = (...args: never) => unknown

const describeValue = (value: unknown): string => {
  if (value === null) return "null"
  if (Array.isArray(value)) return "an array"
  if (typeof value === "function") return "a function"
  if (typeof value === "object") return "an object"
  if (typeof value === "string") return value.length > 40 ? `a string of ${value.length} characters` : JSON.stringify(value)
  return `${typeof value} ${String(value)}`
}

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> => typeof value === "object" && value !== null && !Array.isArray(value)

// A name appears in every note about the plugin: one line, something to read.
const controlCharacters = /[\u0000-\u001f\u007f]/

type HookGroup = "hooks" | "rawHooks"

const knownNames: Record<HookGroup, ReadonlyArray<string>> = { hooks: hookNames, rawHooks: rawHookNames }

/** The known functions of `hooks` or `rawHooks`, bound to their object (so `this` works as the author wrote it). */
const checkHooks = (
  group: HookGroup,
  value: unknown,
  label: string,
  notes: Array<string>
): { readonly hooks: Record<string, Callable> | undefined } | { readonly why: string } => {
  if (value === undefined) return { hooks: undefined }
  if (!isRecord(value)) return { why: `has "${group}" that is not an object (got ${describeValue(value)})` }
  const known = knownNames[group]
  const other = group === "hooks" ? "rawHooks" : "hooks"
  const hooks: Record<string, Callable> = {}
  for (const name of known) {
    const hook = value[name]
    if (hook === undefined) continue
    if (typeof hook !== "function") return { why: `has "${group}.${name}" that is not a function (got ${describeValue(hook)})` }
    hooks[name] = (hook as Callable).bind(value)
  }
  for (const key of Object.keys(value)) {
    if (known.includes(key)) continue
    const elsewhere = knownNames[other].includes(key) ? ` ("${key}" belongs under "${other}")` : ""
    notes.push(`${label}: "${group}.${key}" is not a known ${group === "hooks" ? "hook" : "raw hook"}${elsewhere}; ignored. Known: ${known.join(", ")}.`)
  }
  return { hooks }
}

/** `label` names the entry file in notes; `folder` is the default name. */
export const checkPluginShape = (exported: unknown, folder: string, label: string): ShapeCheck => {
  if (!isRecord(exported)) return { _tag: "Wrong", why: `must be an object with hooks, rawHooks or placeholders (got ${describeValue(exported)})` }
  const name = exported["name"]
  if (name !== undefined && (typeof name !== "string" || name.trim() === "" || controlCharacters.test(name))) {
    return { _tag: "Wrong", why: `has "name" that is not a non-empty string on one line (got ${describeValue(name)})` }
  }
  const notes: Array<string> = []
  const hooks = checkHooks("hooks", exported["hooks"], label, notes)
  if ("why" in hooks) return { _tag: "Wrong", why: hooks.why }
  const rawHooks = checkHooks("rawHooks", exported["rawHooks"], label, notes)
  if ("why" in rawHooks) return { _tag: "Wrong", why: rawHooks.why }
  const placeholdersValue = exported["placeholders"]
  let placeholders: Record<string, () => unknown> | undefined
  if (placeholdersValue !== undefined) {
    if (!isRecord(placeholdersValue)) return { _tag: "Wrong", why: `has "placeholders" that is not an object (got ${describeValue(placeholdersValue)})` }
    placeholders = {}
    for (const [key, resolver] of Object.entries(placeholdersValue)) {
      if (!placeholderNamePattern.test(key)) {
        notes.push(`${label}: placeholder ${JSON.stringify(key)} is refused: a plugin placeholder's name must match ${placeholderNamePattern.source}; ignored.`)
      } else if (typeof resolver !== "function") {
        notes.push(`${label}: placeholder "${key}" is not a function (got ${describeValue(resolver)}); ignored.`)
      } else {
        placeholders[key] = (resolver as () => unknown).bind(placeholdersValue)
      }
    }
  }
  const plugin = {
    name: typeof name === "string" ? name : folder,
    ...(hooks.hooks !== undefined ? { hooks: hooks.hooks as PluginHooks } : {}),
    ...(rawHooks.hooks !== undefined ? { rawHooks: rawHooks.hooks as PluginRawHooks } : {}),
    ...(placeholders !== undefined ? { placeholders: placeholders as NonNullable<Plugin["placeholders"]> } : {})
  }
  return { _tag: "Plugin", plugin, notes }
}
