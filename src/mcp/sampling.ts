/**
 * A server's `sampling/createMessage` (issue 15): only for a server whose entry says
 * `"sampling": true` (connect.ts declares the capability for it alone). Each request is a question
 * to the operator through the Operator's question dialog, as elicitation is: the server, the model
 * it would go to, its system prompt and messages (clipped, on one line each) and maxTokens. Sent:
 * the model answers in a side request (src/engine/sampling.ts, given by layers/session-mcp.ts) and
 * the server gets `{ role: "assistant", content: { type: "text", text }, model, stopReason }`.
 * Declined, dismissed, nobody to ask (crystal run, with a note) or a failed model call: the server
 * gets a JSON-RPC error saying why. The server never sees anything of the session but the answer.
 */
import * as Effect from "effect/Effect"
import type { CreateMessageRequestParams, CreateMessageResult, SamplingMessageContentBlock } from "@modelcontextprotocol/sdk/types.js"
import type { Question, QuestionAsker } from "../tools/questions.ts"
import { messageOf } from "../text/error-text.ts"
import { formatBytes } from "../text/bytes.ts"
import { clip, oneLine } from "../text/clip.ts"
import { plural } from "../text/plural.ts"

/**
 * The request in Crystal's terms, which src/engine/sampling.ts answers (src/mcp does not import the
 * engine; layers/session-mcp.ts joins the two).
 */
export interface SamplingPrompt {
  readonly server: string
  readonly system: string
  readonly messages: ReadonlyArray<{
    readonly role: "user" | "assistant"
    readonly parts: ReadonlyArray<{ readonly type: "text"; readonly text: string } | { readonly type: "image"; readonly mime: string; readonly base64: string }>
  }>
  readonly maxTokens: number
}

export interface SamplingAnswer {
  readonly text: string
  /** "provider/model" that answered. */
  readonly model: string
  /** MCP's stopReason: endTurn, maxTokens, or Crystal's finish reason as it is. */
  readonly stopReason: string
}

export interface SamplingModel {
  /** "provider/model" a request made now goes to (the session's active model). */
  readonly current: () => string
  /** Rejects with an Error saying why the model gave no answer. */
  readonly complete: (prompt: SamplingPrompt, signal: AbortSignal) => Promise<SamplingAnswer>
}

/** JSON-RPC error codes: the MCP specification's "user rejected sampling request" is -1. */
export const rpcCodes = { userRejected: -1, invalidParams: -32602, internalError: -32603, methodNotFound: -32601 } as const

/** An error the SDK sends as is: `code` and `message` (an McpError would prefix "MCP error -N:" to the message). */
export const rpcError = (code: number, message: string): Error => Object.assign(new Error(message), { code })

/** What a server that asks while sampling is off for it is told. */
export const samplingOffMessage = (server: string, source: "home" | "workspace"): string =>
  `Sampling is off for this server (${server}) in Crystal. The operator can turn it on with "sampling": true in mcpServers.${server} of ` +
  `${source === "home" ? "Crystal's config.json" : "the workspace's .crystal/mcp.json"}; each request is then approved by the operator.`

const base64Size = (data: string): string => formatBytes(Buffer.byteLength(data, "base64"))

/** One content block of a sampling message (`content` is one block or a list of them). */
type Block = SamplingMessageContentBlock

/** The request as a prompt, or why Crystal cannot take it. */
export const samplingPromptOf = (server: string, params: CreateMessageRequestParams): SamplingPrompt | string => {
  if ((params.tools?.length ?? 0) > 0 || params.toolChoice !== undefined) return "Crystal's sampling offers the model no tools (the client did not declare sampling.tools)"
  const messages: Array<SamplingPrompt["messages"][number]> = []
  for (const message of params.messages) {
    const blocks: ReadonlyArray<Block> = Array.isArray(message.content) ? message.content : [message.content]
    const parts: Array<SamplingPrompt["messages"][number]["parts"][number]> = []
    for (const block of blocks) {
      switch (block.type) {
        case "text":
          parts.push({ type: "text", text: block.text })
          break
        case "image":
          parts.push({ type: "image", mime: block.mimeType, base64: block.data })
          break
        case "audio":
          parts.push({ type: "text", text: `[audio (${block.mimeType}, ${base64Size(block.data)}) from the server is not sent: Crystal sends no audio]` })
          break
        default:
          return `a message holds a ${block.type} block, and Crystal's sampling runs no tools`
      }
    }
    messages.push({ role: message.role, parts })
  }
  if (messages.length === 0) return "the request has no messages"
  return { server, system: params.systemPrompt ?? "", messages, maxTokens: params.maxTokens }
}

const MAX_SHOWN_MESSAGES = 6
const SHOWN_CHARS = 300

/** The operator's question: what would be sent, to which model, for whom. */
export const samplingQuestion = (prompt: SamplingPrompt, model: string): Question => {
  const shown = prompt.messages.slice(-MAX_SHOWN_MESSAGES)
  const hidden = prompt.messages.length - shown.length
  const lines = [
    `MCP server ${prompt.server} asks ${model} for an answer of at most ${prompt.maxTokens} tokens (nothing of this conversation is sent; the answer goes to the server only).`,
    ...(prompt.system.trim() === "" ? [] : [`System prompt: ${clip(oneLine(prompt.system), SHOWN_CHARS)}`]),
    ...(hidden > 0 ? [`(${plural(hidden, "earlier message")} not shown)`] : []),
    ...shown.map((message) => {
      const text = message.parts.map((part) => (part.type === "text" ? part.text : `[image ${part.mime}, ${base64Size(part.base64)}]`)).join(" ")
      return `${message.role}: ${clip(oneLine(text), SHOWN_CHARS)}`
    })
  ]
  return {
    header: clip(`${prompt.server}: sampling`, 60),
    question: lines.join("\n"),
    options: [
      { label: "Send", description: `ask ${model} and give the server its answer` },
      { label: "Decline", description: "the server is told you declined" }
    ],
    multiSelect: false,
    allowCustom: false,
    // A stray Enter (typing on while the dialog opens) must not spend tokens on the server's prompt.
    initial: ["Decline"]
  }
}


/**
 * Answers one request, or throws the JSON-RPC error the server gets. `note` gets a line when the
 * operator should know what happened without having been asked (crystal run, a failure).
 */
export const answerSampling = async (
  deps: { readonly asker: QuestionAsker; readonly model: SamplingModel; readonly note: (text: string) => void },
  server: string,
  params: CreateMessageRequestParams,
  signal: AbortSignal
): Promise<CreateMessageResult> => {
  const prompt = samplingPromptOf(server, params)
  if (typeof prompt === "string") {
    deps.note(`MCP server ${server} asked to use your model (sampling); declined: ${prompt}.`)
    throw rpcError(rpcCodes.invalidParams, `Crystal declined the sampling request: ${prompt}.`)
  }
  const model = deps.model.current()
  const outcome = await Effect.runPromise(deps.asker.askQuestions([samplingQuestion(prompt, model)]))
  if (outcome._tag === "NoOperator") {
    deps.note(`MCP server ${server} asked to use your model (sampling); declined: nobody to approve it in crystal run.`)
    throw rpcError(rpcCodes.userRejected, "The sampling request was declined: Crystal runs without an operator to approve it (crystal run).")
  }
  if (outcome._tag === "Dismissed" || outcome.answers[0]?.selected[0] !== "Send") {
    throw rpcError(rpcCodes.userRejected, "The operator declined the sampling request.")
  }
  // The server gave up waiting (its own timeout, or the call was cancelled) while the operator was asked.
  // (SDK 1.32 drops a cancellation of request id 0, a server's very first request: typescript-sdk#2115.)
  if (signal.aborted) {
    deps.note(`MCP server ${server} cancelled its sampling request before you answered; nothing was sent to the model.`)
    throw rpcError(rpcCodes.internalError, "The request was cancelled.")
  }
  let answer: SamplingAnswer
  try {
    answer = await deps.model.complete(prompt, signal)
  } catch (error) {
    // A request the server cancelled gets no answer at all; the operator need not hear of it.
    if (!signal.aborted) deps.note(`MCP server ${server}'s sampling request failed: ${messageOf(error)}`)
    throw rpcError(rpcCodes.internalError, `Sampling failed: ${messageOf(error)}`)
  }
  return { role: "assistant", content: { type: "text", text: answer.text }, model: answer.model, stopReason: answer.stopReason }
}
