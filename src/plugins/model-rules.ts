/**
 * What transformModel and rebuildModel may return (seed 001). transformModel changes texts of one
 * outbound call: the same items in the same order, the system text and every tool call as they
 * were, images only dropped. rebuildModel may restructure the call freely; the host refuses only
 * what it cannot represent: duplicate ids, empty reasoning, images the session does not hold or
 * of another type, images added to a call that cannot carry them, a second or moved system item,
 * a tool result whose call is nowhere. (A second system item is a moved one: refused as such.)
 */
import type { ImageRef } from "../session/items.ts"
import type { PluginItemRole, PluginModelImage, PluginModelItem, PluginModelRequest } from "./api.ts"
import type { Checked } from "./hook-rules.ts"

const roles: ReadonlyArray<PluginItemRole> = ["system", "user", "assistant", "reasoning", "tool_call", "tool_result"]

const isRecord = (value: unknown): value is Readonly<Record<string, unknown>> => typeof value === "object" && value !== null && !Array.isArray(value)

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/** The items of a returned request in the view's shape, or what makes them unreadable. */
const readItems = (result: unknown): ReadonlyArray<PluginModelItem> | string => {
  if (!isRecord(result) || !Array.isArray(result.items)) return "it must return nothing or a request with an 'items' array"
  for (const [index, item] of result.items.entries()) {
    if (!isRecord(item)) return `items[${index}] must be an object`
    if (typeof item.id !== "string" || item.id === "") return `items[${index}].id must be a non-empty string`
    if (typeof item.role !== "string" || !(roles as ReadonlyArray<string>).includes(item.role)) return `items[${index}].role must be one of ${roles.join(", ")}`
    if (typeof item.text !== "string") return `items[${index}].text must be a string`
    if (item.images !== undefined) {
      if (!Array.isArray(item.images)) return `items[${index}].images must be an array`
      if (item.images.some((image) => !isRecord(image) || typeof image.id !== "string")) return `items[${index}].images must name images by id`
    }
  }
  return result.items as ReadonlyArray<PluginModelItem>
}

const imageIds = (images: ReadonlyArray<PluginModelImage> | undefined): ReadonlyArray<string> => (images ?? []).map((image) => image.id)

const changed = <A>(value: A): Checked<A> => ({ _tag: "Use", value })
const skip = (rule: string): Checked<never> => ({ _tag: "Skip", rule })

/** transformModel's result against the request it was given (`before`, the host's copy). */
export const checkTransform = (result: unknown, before: PluginModelRequest): Checked<PluginModelRequest> => {
  if (result === undefined) return { _tag: "Keep" }
  const items = readItems(result)
  if (typeof items === "string") return skip(items)
  if (items.length !== before.items.length) {
    return skip(`it may not add or drop items (${before.items.length} became ${items.length}); structural changes belong to the raw hook rebuildModel`)
  }
  for (const [index, item] of items.entries()) {
    const was = before.items[index]
    if (was === undefined) continue
    if (item.id !== was.id || item.role !== was.role) return skip(`it may not reorder items or change their roles (item ${index} was ${was.role} ${was.id})`)
    if (was.role === "system" && item.text !== was.text) return skip("it may not edit the system message")
    if (was.role === "reasoning" && item.text !== was.text) return skip("it may change only user, assistant and tool result texts, not reasoning")
    if (was.role === "tool_call" && (item.text !== was.text || item.callId !== was.callId || item.name !== was.name || !sameJson(item.arguments, was.arguments))) {
      return skip("it may not change tool calls (onToolCall rewrites a call before it runs)")
    }
    if (was.role === "tool_result" && (item.callId !== was.callId || (item.isError ?? false) !== (was.isError ?? false))) {
      return skip("it may change a tool result's text only")
    }
    const kept = imageIds(was.images)
    const now = imageIds(item.images)
    if (now.some((id) => !kept.includes(id)) || new Set(now).size !== now.length) return skip(`it may only drop images already on an item (item ${index} gained one)`)
  }
  const unchanged = items.every((item, index) => item.text === before.items[index]?.text && imageIds(item.images).length === imageIds(before.items[index]?.images).length)
  if (unchanged) return { _tag: "Keep" }
  // Only the allowed fields travel on: a changed id, role or call was refused above.
  return changed({
    ...before,
    items: items.map((item, index) => {
      const was = before.items[index] as PluginModelItem
      const images = (was.images ?? []).filter((image) => imageIds(item.images).includes(image.id))
      return { ...was, text: item.text, ...(was.images === undefined ? {} : { images }) }
    })
  })
}

/**
 * rebuildModel's result. `held` is every image the session holds, by content hash; `before` the
 * request it was given (for the images an item already had).
 */
export const checkRebuild = (result: unknown, before: PluginModelRequest, held: ReadonlyMap<string, ImageRef>): Checked<PluginModelRequest> => {
  if (result === undefined) return { _tag: "Keep" }
  const items = readItems(result)
  if (typeof items === "string") return skip(items)
  const seen = new Set<string>()
  const callIds = new Set<string>()
  for (const item of [...before.items, ...items]) if (item.role === "tool_call") callIds.add(item.callId ?? item.id)
  const beforeById = new Map(before.items.map((item) => [item.id, item]))
  for (const [index, item] of items.entries()) {
    if (seen.has(item.id)) return skip(`it may not repeat an item id (${item.id})`)
    seen.add(item.id)
    if (item.role === "system" && index !== 0) return skip("the system item can only come first (Crystal sends one system text, ahead of the conversation)")
    if (item.role === "reasoning" && item.text.trim() === "") return skip(`it may not return an empty reasoning text (item ${item.id})`)
    if (item.role === "tool_call" && (typeof item.name !== "string" || item.name === "")) return skip(`tool call ${item.id} needs a name`)
    if (item.role === "tool_result" && (typeof item.callId !== "string" || !callIds.has(item.callId))) {
      return skip(`tool result ${item.id} must name the callId of a tool call in the request (its name is derived from that call)`)
    }
    const was = beforeById.get(item.id)
    const hadImages = new Set(was !== undefined && was.role === item.role ? imageIds(was.images) : [])
    for (const image of item.images ?? []) {
      const holding = held.get(image.id)
      if (holding === undefined) return skip(`item ${item.id} names an image the session does not hold (${image.id.slice(0, 12)}…); plugins cannot create images`)
      if (image.mediaType !== undefined && image.mediaType !== holding.mime) return skip(`item ${item.id} gives image ${image.id.slice(0, 12)}… the type ${image.mediaType}; it is ${holding.mime}`)
      if (!before.acceptsImages && !hadImages.has(image.id)) return skip(`item ${item.id} gains an image, but this ${before.purpose} call cannot carry images`)
    }
  }
  return changed({ ...before, items: items.map((item) => ({ ...item, ...(item.images === undefined ? {} : { images: item.images.map((image) => ({ ...image, mediaType: held.get(image.id)?.mime as PluginModelImage["mediaType"] })) }) })) })
}
