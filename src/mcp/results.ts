/**
 * An MCP tools/call result as a tool output (issue 15, item 5): text as text; images through the
 * session's image service (the media store, a marker in the text, the bytes on the next request,
 * SPEC I6); embedded resources and resource links as text; audio named, not sent; structured
 * content as JSON text when no text block already carries it; `isError` as a failed result.
 * The text is capped and spilled exactly as bash output is.
 */
import * as Effect from "effect/Effect"
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js"
import { BASH_OUTPUT_CAPS, formatSize } from "../tools/bash-specs.ts"
import { capHeadTail } from "../tools/bash-tools.ts"
import type { ToolContext, ToolOutput } from "../tools/tool.ts"
import type { ImageRef } from "../session/items.ts"

type Block = CallToolResult["content"][number]

const base64Size = (data: string): number => Math.floor((data.length * 3) / 4) - (data.endsWith("==") ? 2 : data.endsWith("=") ? 1 : 0)

const resourceText = (block: Extract<Block, { type: "resource" }>): string => {
  const resource = block.resource
  const mime = resource.mimeType === undefined ? "" : ` (${resource.mimeType})`
  return "text" in resource
    ? `[resource ${resource.uri}${mime}]\n${resource.text}`
    : `[resource ${resource.uri}${mime}: ${formatSize(base64Size(resource.blob))} of binary data, not shown]`
}

const linkText = (block: Extract<Block, { type: "resource_link" }>): string => {
  const mime = block.mimeType === undefined ? "" : ` (${block.mimeType})`
  const description = block.description === undefined ? "" : `: ${block.description}`
  return `[resource link ${block.name} ${block.uri}${mime}${description}]`
}

/** `source` names the call for image markers and notes ("everything/get-tiny-image"). */
export const toolOutputOf = (result: CallToolResult, toolName: string, source: string, context: ToolContext): Effect.Effect<ToolOutput> =>
  Effect.gen(function* () {
    const parts: Array<string> = []
    const images: Array<ImageRef> = []
    for (const block of result.content) {
      switch (block.type) {
        case "text":
          parts.push(block.text)
          break
        case "image": {
          const attached =
            context.images === undefined
              ? undefined
              : yield* Effect.either(context.images.attach(Buffer.from(block.data, "base64"), source))
          if (attached !== undefined && attached._tag === "Right") {
            images.push(attached.right.ref)
            parts.push(`${attached.right.ref.marker ?? "[Image]"} image from ${source} (${attached.right.ref.mime})`)
          } else {
            const why = attached === undefined ? "this session keeps no images" : attached.left.message
            parts.push(`[image from ${source} (${block.mimeType}, ${formatSize(base64Size(block.data))}) not shown: ${why}]`)
          }
          break
        }
        case "audio":
          parts.push(`[audio from ${source} (${block.mimeType}, ${formatSize(base64Size(block.data))}) not shown: Crystal sends no audio]`)
          break
        case "resource":
          parts.push(resourceText(block))
          break
        case "resource_link":
          parts.push(linkText(block))
          break
      }
    }
    if (result.structuredContent !== undefined) {
      const json = JSON.stringify(result.structuredContent)
      const carried = parts.some((part) => {
        try {
          return JSON.stringify(JSON.parse(part)) === json
        } catch {
          return false
        }
      })
      if (!carried) parts.push(JSON.stringify(result.structuredContent, null, 2))
    }
    const joined = parts.join("\n")
    const text = yield* capHeadTail(context, toolName, joined === "" ? "(no output)" : joined, BASH_OUTPUT_CAPS)
    return { text, ...(images.length > 0 ? { images } : {}), ...(result.isError === true ? { isError: true } : {}) }
  })
