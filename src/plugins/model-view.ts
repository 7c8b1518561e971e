/**
 * An outbound model call as plugins see it (PluginModelRequest) and back. The view is flat: the
 * system text, then each transcript item, an assistant message split into its reasoning parts,
 * its text and its tool calls, each with an id of its own. Images are named by content hash,
 * never carried. Going back, consecutive reasoning → assistant → tool_call items make one
 * assistant message again; an item the host made keeps what the view does not show (provider
 * state, the model that wrote it) as long as the plugin left it as it was.
 */
import type { ModelRequest } from "../providers/model-client.ts"
import { newItemId } from "../session/ids.ts"
import type { AssistantMessage, ImageRef, ReasoningPart, ToolCall, ToolResult, TranscriptItem, UserMessage } from "../session/items.ts"
import type { PluginModelImage, PluginModelItem, PluginModelRequest } from "./api.ts"

export const systemItemId = "system"

const reasoningId = (message: AssistantMessage, index: number) => `${message.id}#reasoning${index}`
const callItemId = (message: AssistantMessage, index: number) => `${message.id}#call${index}`

export const pluginImage = (ref: ImageRef): PluginModelImage => ({
  id: ref.sha256,
  mediaType: ref.mime as PluginModelImage["mediaType"],
  ...(ref.marker === undefined ? {} : { marker: ref.marker })
})

const imagesOf = (refs: ReadonlyArray<ImageRef> | undefined) => (refs === undefined || refs.length === 0 ? {} : { images: refs.map(pluginImage) })

const viewItems = (item: TranscriptItem): ReadonlyArray<PluginModelItem> => {
  switch (item._tag) {
    case "user":
      return [{ id: item.id, role: "user", text: item.text, ...imagesOf(item.images) }]
    case "assistant":
      return [
        ...(item.reasoning ?? []).map((part, index): PluginModelItem => ({ id: reasoningId(item, index), role: "reasoning", text: part.text })),
        { id: item.id, role: "assistant", text: item.text },
        ...(item.toolCalls ?? []).map(
          (call, index): PluginModelItem => ({ id: callItemId(item, index), role: "tool_call", text: "", callId: call.id, name: call.name, arguments: call.arguments })
        )
      ]
    case "tool_result":
      return [{ id: item.id, role: "tool_result", text: item.text, callId: item.callId, isError: item.isError, ...imagesOf(item.images) }]
    // Notes and compaction records are never sent.
    case "note":
    case "compaction":
      return []
  }
}

export const toPluginRequest = (
  request: Pick<ModelRequest, "system" | "items">,
  purpose: PluginModelRequest["purpose"],
  acceptsImages: boolean
): PluginModelRequest => ({
  purpose,
  acceptsImages,
  items: [{ id: systemItemId, role: "system", text: request.system }, ...request.items.flatMap(viewItems)]
})

/** The host's own items of a request, by view id, to recognise what a plugin left as it was. */
export interface HostItems {
  readonly byId: ReadonlyMap<string, { readonly item: PluginModelItem; readonly source: TranscriptItem | undefined; readonly part?: ReasoningPart | ToolCall | undefined }>
}

export const hostItems = (request: Pick<ModelRequest, "system" | "items">): HostItems => {
  const byId = new Map<string, { item: PluginModelItem; source: TranscriptItem | undefined; part?: ReasoningPart | ToolCall }>()
  byId.set(systemItemId, { item: { id: systemItemId, role: "system", text: request.system }, source: undefined })
  for (const source of request.items) {
    const items = viewItems(source)
    for (const item of items) {
      let part: ReasoningPart | ToolCall | undefined
      if (source._tag === "assistant" && item.role === "reasoning") part = source.reasoning?.[Number(item.id.slice(item.id.lastIndexOf("#reasoning") + 10))]
      if (source._tag === "assistant" && item.role === "tool_call") part = source.toolCalls?.find((call) => call.id === item.callId)
      byId.set(item.id, { item, source, ...(part === undefined ? {} : { part }) })
    }
  }
  return { byId }
}

/** What an assistant message keeps of the host's (usage, finish reason) when its parts are rebuilt. */
const withoutParts = (message: AssistantMessage | undefined): Partial<AssistantMessage> => {
  if (message === undefined) return {}
  const { reasoning: _reasoning, toolCalls: _toolCalls, ...rest } = message
  return rest
}

const sameJson = (a: unknown, b: unknown): boolean => JSON.stringify(a) === JSON.stringify(b)

/** The host's item of the same id and role (a different role makes it a new item). */
const hostTwin = (host: HostItems, item: PluginModelItem) => {
  const twin = host.byId.get(item.id)
  return twin !== undefined && twin.item.role === item.role ? twin : undefined
}

const markerText = (images: ReadonlyArray<PluginModelImage> | undefined): string =>
  (images ?? []).map((image) => image.marker ?? "[Image]").join(" ")

const withMarkers = (text: string, images: ReadonlyArray<PluginModelImage> | undefined): string => {
  const markers = markerText(images)
  return markers === "" ? text : text === "" ? markers : `${text} ${markers}`
}

/**
 * The request a checked view stands for. `held` names the images the session holds (content hash →
 * reference); `model` is the "provider/model" of the call, for assistant messages the host did not write.
 */
export const fromPluginRequest = (
  view: PluginModelRequest,
  original: Pick<ModelRequest, "system" | "items">,
  held: ReadonlyMap<string, ImageRef>,
  model: string
): { readonly system: string; readonly items: ReadonlyArray<TranscriptItem> } => {
  const host = hostItems(original)
  const refs = (images: ReadonlyArray<PluginModelImage> | undefined) => {
    const found = (images ?? []).flatMap((image) => {
      const ref = held.get(image.id)
      return ref === undefined ? [] : [ref]
    })
    return found.length === 0 ? {} : { images: found }
  }
  const callNames = new Map<string, string>()
  for (const item of view.items) if (item.role === "tool_call") callNames.set(item.callId ?? item.id, item.name ?? "")
  for (const { part } of host.byId.values()) if (part !== undefined && "name" in part) if (!callNames.has(part.id)) callNames.set(part.id, part.name)

  const items: Array<TranscriptItem> = []
  const usedIds = new Set<string>()
  let system = ""
  type Group = { base: AssistantMessage | undefined; text: string | undefined; reasoning: Array<ReasoningPart>; calls: Array<ToolCall>; phase: number }
  let group: Group | undefined
  const flush = () => {
    if (group === undefined) return
    const base = group.base
    const id = base !== undefined && !usedIds.has(base.id) ? base.id : newItemId()
    usedIds.add(id)
    items.push({
      ...withoutParts(base),
      _tag: "assistant",
      id,
      text: group.text ?? "",
      model: base?.model ?? model,
      ...(group.reasoning.length > 0 ? { reasoning: group.reasoning } : {}),
      ...(group.calls.length > 0 ? { toolCalls: group.calls } : {})
    })
    group = undefined
  }
  const phases = { reasoning: 0, assistant: 1, tool_call: 2 } as const
  for (const item of view.items) {
    const twin = hostTwin(host, item)
    if (item.role === "system") {
      flush()
      system = item.text
      continue
    }
    if (item.role === "reasoning" || item.role === "assistant" || item.role === "tool_call") {
      const phase = phases[item.role]
      if (group !== undefined && (phase < group.phase || (item.role === "assistant" && group.text !== undefined))) flush()
      group ??= { base: undefined, text: undefined, reasoning: [], calls: [], phase }
      group.phase = phase
      if (group.base === undefined && twin?.source?._tag === "assistant") group.base = twin.source
      if (item.role === "assistant") group.text = withMarkers(item.text, item.images)
      else if (item.role === "reasoning") {
        const part = twin?.part
        group.reasoning.push(part !== undefined && "text" in part && part.text === item.text ? part : { text: item.text })
      } else {
        const part = twin?.part
        const callId = item.callId ?? item.id
        const unchanged = part !== undefined && "name" in part && part.id === callId && part.name === item.name && sameJson(part.arguments, item.arguments)
        group.calls.push(unchanged ? part : { id: callId, name: item.name ?? "", arguments: item.arguments ?? {} })
      }
      continue
    }
    flush()
    if (item.role === "user") {
      const source = twin?.source?._tag === "user" ? twin.source : undefined
      const user: UserMessage = { _tag: "user", id: item.id, text: item.text, ...(source?.synthetic === undefined ? {} : { synthetic: source.synthetic }), ...refs(item.images) }
      items.push(user)
    } else {
      const callId = item.callId ?? ""
      const source = twin?.source?._tag === "tool_result" ? twin.source : undefined
      const result: ToolResult = {
        _tag: "tool_result",
        id: item.id,
        callId,
        name: callNames.get(callId) ?? source?.name ?? "",
        text: item.text,
        isError: item.isError ?? source?.isError ?? false,
        ...refs(item.images)
      }
      items.push(result)
    }
    usedIds.add(item.id)
  }
  flush()
  return { system, items }
}
