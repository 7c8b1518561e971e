/**
 * An MCP tools/call result as a tool output (issue 15, item 5): text as text; images through the
 * session's image service (the media store, a marker in the text, the bytes on the next request,
 * SPEC I6); embedded resources and resource links as text; audio named, not sent; structured
 * content as JSON text when no text block already carries it; `isError` as a failed result.
 * The text is capped and spilled exactly as bash output is.
 */
import * as Effect from "effect/Effect"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { BASH_OUTPUT_CAPS } from "../tools/bash-specs.ts"
import { capHeadTail } from "../tools/bash-tools.ts"
import type { ToolContext, ToolOutput } from "../tools/tool.ts"
import type { ImageRef } from "../session/items.ts"
import { formatBytes } from "../text/bytes.ts"

type Block = CallToolResult["content"][number]

const base64Size = (data: string): number => Math.floor((data.length * 3) / 4) - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0)

const resourceText = (block: Extract<Block, { type: "resource" }>): string => {
  const resource = block.resource
  const mime = resource.mimeType === undefined ? "" : ` (${resource.mimeType})`
  return "text" in resource
    ? `[resource ${resource.uri}${mime}]\n${resource.text}`
    : `[resource ${resource.uri}${mime}: ${formatBytes(base64Size(resource.blob))} of binary data, not shown]`
}

const linkText = (block: Extract<Block, { type: "resource_link" }>): string => {
  const mime = block.mimeType === undefined ? "" : ` (${block.mimeType})`
  const description = block.description === undefined ? "" : `: ${block.description}`
  return `[resource link ${block.name} ${block.uri}${mime}${description}]`
}

/** A block as text; images are the media store's (attachImage). */
const blockText = (block: Exclude<Block, { type: "image" }>, source: string): string => {
  switch (block.type) {
    case "text":
      return block.text
    case "audio":
      return `[audio from ${source} (${block.mimeType}, ${formatBytes(base64Size(block.data))}) not shown: Crystal sends no audio]`
    case "resource":
      return resourceText(block)
    case "resource_link":
      return linkText(block)
  }
}

/** An image block through the session's image service: a marker for the text, and its reference. */
const attachImage = (block: Extract<Block, { type: "image" }>, source: string, context: ToolContext): Effect.Effect<{ readonly text: string; readonly ref?: ImageRef }> =>
  context.images === undefined
    ? Effect.succeed({ text: notShown(block, source, "this session keeps no images") })
    : Effect.match(context.images.attach(Buffer.from(block.data, "base64"), source), {
        onFailure: (error) => ({ text: notShown(block, source, error.message) }),
        onSuccess: ({ ref }) => ({ text: `${ref.marker ?? "[Image]"} image from ${source} (${ref.mime})`, ref })
      })

const notShown = (block: Extract<Block, { type: "image" }>, source: string, why: string): string =>
  `[image from ${source} (${block.mimeType}, ${formatBytes(base64Size(block.data))}) not shown: ${why}]`

/** Structured content joins the text unless a text block already carries the same JSON. */
const withStructured = (parts: ReadonlyArray<string>, structured: CallToolResult["structuredContent"]): ReadonlyArray<string> => {
  if (structured === undefined) return parts
  const json = JSON.stringify(structured)
  const carried = parts.some((part) => {
    try {
      return JSON.stringify(JSON.parse(part)) === json
    } catch {
      return false
    }
  })
  return carried ? parts : [...parts, JSON.stringify(structured, null, 2)]
}

const finish = (result: CallToolResult, parts: ReadonlyArray<string>, images: ReadonlyArray<ImageRef>, toolName: string, context: ToolContext): Effect.Effect<ToolOutput> => {
  const joined = withStructured(parts, result.structuredContent).join("\n")
  return Effect.map(capHeadTail(context, toolName, joined === "" ? "(no output)" : joined, BASH_OUTPUT_CAPS), (text) => ({
    text,
    ...(images.length > 0 ? { images } : {}),
    ...(result.isError === true ? { isError: true } : {})
  }))
}

/**
 * `source` names the call for image markers and notes ("everything/get-tiny-image"). A result
 * without images (most of them) is converted without a generator: this runs on every call, and
 * its cost is the per-call overhead scripts/bench/mcp.ts measures.
 */
export const toolOutputOf = (result: CallToolResult, toolName: string, source: string, context: ToolContext): Effect.Effect<ToolOutput> => {
  if (!result.content.some((block) => block.type === "image")) {
    return finish(result, result.content.map((block) => blockText(block as Exclude<Block, { type: "image" }>, source)), [], toolName, context)
  }
  return Effect.gen(function* () {
    const parts: Array<string> = []
    const images: Array<ImageRef> = []
    for (const block of result.content) {
      if (block.type !== "image") {
        parts.push(blockText(block, source))
        continue
      }
      const attached = yield* attachImage(block, source, context)
      parts.push(attached.text)
      if (attached.ref !== undefined) images.push(attached.ref)
    }
    return yield* finish(result, parts, images, toolName, context)
  })
}
