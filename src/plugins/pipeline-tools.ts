/**
 * The tool seams of the hook pipeline (pipeline.ts): onToolCall (a rewritten call is classified and
 * approved as rewritten, and noted), onApproval then rewriteApproval (only ever raising the risk or
 * asking; a hook that throws or times out makes the call ask), and onToolResult (text and images,
 * new image bytes stored through the session's media path).
 */
import * as Effect from "effect/Effect"
import { maxRisk, type Classification } from "../approval/classification.ts"
import type { ImageRef, ToolCall } from "../session/items.ts"
import { callHook } from "./hook-call.ts"
import { checkApproval, checkRawApproval, checkToolCall, checkToolResult, type ToolResultImage } from "./hook-rules.ts"
import type { HookRunner } from "./hook-runner.ts"
import { pluginImage } from "./model-view.ts"

export interface ToolOutputView {
  readonly text: string
  readonly images: ReadonlyArray<ImageRef>
}

/** New image bytes from onToolResult go through the session's media path (markers, limits, store). */
export type AttachImage = (bytes: Uint8Array, source: string) => Effect.Effect<ImageRef, { readonly message: string }>

export interface ToolResultTurn {
  readonly acceptsImages: boolean
  readonly held: ReadonlyMap<string, ImageRef>
  readonly attach: AttachImage | undefined
}

export interface ToolSeams {
  /** onToolCall: the call to classify and run (same id); a rewrite is noted. */
  readonly toolCall: (call: ToolCall) => Effect.Effect<ToolCall>
  /** onApproval, then rewriteApproval: the classification the policy decides from. */
  readonly approval: (call: ToolCall, classification: Classification) => Effect.Effect<Classification>
  readonly toolResult: (call: ToolCall, output: ToolOutputView, turn: ToolResultTurn) => Effect.Effect<ToolOutputView>
}

export const toolSeams = ({ table, budgetMs, note, skipped, failureNote, fold }: HookRunner): ToolSeams => ({
  toolCall: (call) =>
    Effect.gen(function* () {
      if (table.onToolCall.length === 0) return call
      const folded = yield* fold(
        "onToolCall",
        { name: call.name, arguments: call.arguments },
        (current) => ({ id: call.id, name: current.name, arguments: current.arguments }),
        (result, current) => checkToolCall(result, { id: call.id, ...current })
      )
      const { name, arguments: args } = folded.value
      if (name === call.name && JSON.stringify(args) === JSON.stringify(call.arguments)) return call
      yield* note(folded.changedBy, `Plugin ${folded.changedBy.map((owner) => `'${owner}'`).join(", ")} rewrote the call ${call.name} → ${name}; it is classified and approved as rewritten.`)
      return { id: call.id, name, arguments: args }
    }),
  approval: (call, classification) =>
    Effect.gen(function* () {
      let current = classification
      for (const { plugin, invoke } of table.onApproval) {
        const argument = { tool: call.name, arguments: call.arguments, risk: current.risk, authority: current.authority, scope: current.scope, summary: current.summary }
        const outcome = yield* callHook(invoke, argument, budgetMs)
        if (outcome._tag !== "Returned") {
          // Fail closed: the hook could only have raised the risk, so asking costs nothing.
          yield* failureNote(plugin.name, "onApproval", outcome, "the call asks the operator")
          current = { ...current, ask: true }
          continue
        }
        const checked = checkApproval(outcome.value, { risk: current.risk, ask: current.ask === true })
        if (checked._tag === "Skip") yield* skipped(plugin.name, "onApproval", checked.rule)
        else if (checked._tag === "Use") current = { ...current, risk: maxRisk(current.risk, checked.value.risk), ...(checked.value.ask ? { ask: true } : {}) }
      }
      const raw = yield* fold("rewriteApproval", current, (value) => value, (result, value) => checkRawApproval(result, value))
      return raw.value
    }),
  toolResult: (call, output, turn) =>
    Effect.gen(function* () {
      if (table.onToolResult.length === 0) return output
      let current = output
      for (const { plugin, invoke } of table.onToolResult) {
        const outcome = yield* callHook(invoke, { id: call.id, name: call.name, text: current.text, images: current.images.map(pluginImage) }, budgetMs)
        if (outcome._tag !== "Returned") {
          yield* failureNote(plugin.name, "onToolResult", outcome)
          continue
        }
        const checked = checkToolResult(outcome.value)
        if (checked._tag === "Skip") {
          yield* skipped(plugin.name, "onToolResult", checked.rule)
          continue
        }
        if (checked._tag === "Keep") continue
        const text = checked.value.text ?? current.text
        let images = current.images
        if (checked.value.images !== undefined) {
          const resolved = yield* resultImages(checked.value.images, turn)
          if (typeof resolved === "string") yield* note(plugin.name, `Plugin '${plugin.name}': onToolResult images ignored: ${resolved}.`)
          else images = resolved
        }
        current = { text, images }
      }
      return current
    })
})

/** The images a checked onToolResult result names or carries, or why they cannot be used on this turn. */
const resultImages = (
  images: ReadonlyArray<ToolResultImage>,
  turn: ToolResultTurn
): Effect.Effect<ReadonlyArray<ImageRef> | string> =>
  Effect.gen(function* () {
    if (!turn.acceptsImages) return images.length === 0 ? [] : "this turn's model takes no images (text-only turns ignore them)"
    const refs: Array<ImageRef> = []
    for (const [index, image] of images.entries()) {
      if ("data" in image) {
        if (turn.attach === undefined) return "this session cannot store images"
        const bytes = Buffer.from(image.data, "base64")
        const stored = yield* Effect.either(turn.attach(new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength), `a plugin's image ${index + 1}`))
        if (stored._tag === "Left") return `images[${index}]: ${stored.left.message}`
        refs.push(stored.right)
      } else {
        const held = turn.held.get(image.id)
        if (held === undefined) return `images[${index}] names an image the session does not hold`
        if (held.mime !== image.mediaType) return `images[${index}] is ${held.mime}, not ${image.mediaType}`
        refs.push(held)
      }
    }
    return refs
  })
