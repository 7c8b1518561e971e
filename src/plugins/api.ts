/**
 * The published plugin contract (SPEC H1–H3, B5). A plugin's entry module default-exports a
 * `Plugin` (through `definePlugin` or as a plain object). Every hook may return a promise; what a
 * hook returns is checked by the host against its row in docs/plugins.md, and a result that
 * oversteps is skipped with a note naming the plugin, the hook and the rule. Extend these types;
 * never rename a field: plugins compiled against an older build must keep working.
 */
import type { Authority, Classification, Risk, Scope } from "../approval/classification.ts"

export type { Authority, Classification, Risk, Scope }

type MaybePromise<A> = A | Promise<A>

export type ApprovalModeName = "plan" | "default" | "edit" | "review" | "audit" | "full"

export interface SessionInfo {
  readonly workspace: string
  readonly sessionId: string
  readonly approval: ApprovalModeName
}

/** An image the session holds, named without its bytes. */
export interface PluginModelImage {
  /** The image's content hash (sha256, hex): what names it. */
  readonly id: string
  readonly mediaType: "image/png" | "image/jpeg" | "image/gif" | "image/webp"
  /** `[Image #N]` where the session numbered it. */
  readonly marker?: string | undefined
}

/** New image bytes from a plugin (onToolResult on an image-capable turn only); the host stores them. */
export interface PluginImageData {
  readonly mediaType: "image/png" | "image/jpeg" | "image/gif" | "image/webp"
  /** The bytes, base64. */
  readonly data: string
}

export type PluginItemRole = "system" | "user" | "assistant" | "reasoning" | "tool_call" | "tool_result"

/**
 * One item of an outbound model call, flattened: an assistant message is its text item, then one
 * item per reasoning part and per tool call. Ids are the host's; a new item needs an id the
 * request does not use.
 */
export interface PluginModelItem {
  readonly id: string
  readonly role: PluginItemRole
  readonly text: string
  /** user and tool_result items only. */
  readonly images?: ReadonlyArray<PluginModelImage> | undefined
  /** tool_call and tool_result: the call's id. */
  readonly callId?: string | undefined
  /** tool_call: the tool's name (a tool_result's is derived from its call). */
  readonly name?: string | undefined
  /** tool_call: the arguments object. */
  readonly arguments?: unknown
  /** tool_result: the result is an error. */
  readonly isError?: boolean | undefined
}

export interface PluginModelRequest {
  readonly purpose: "work" | "plan" | "side" | "compaction"
  /** True only for a work or plan call to a model that takes images. */
  readonly acceptsImages: boolean
  readonly items: ReadonlyArray<PluginModelItem>
}

export interface PluginUsage {
  readonly inputTokens: number
  readonly outputTokens: number
  readonly cachedInputTokens?: number | undefined
  readonly reasoningTokens?: number | undefined
}

/** One step down the tree of agents: the `task` call (its id, its number in the parent's turn) and the agent it started. */
export type PluginAgentPath = ReadonlyArray<{ readonly callId: string; readonly index: number; readonly name: string }>

export interface PluginHooks {
  onSessionStarted?(s: SessionInfo): MaybePromise<void>
  onSessionEnded?(s: SessionInfo): MaybePromise<void>
  /** Text appended to the instructions of the mode's system text. */
  onPrompt?(p: { readonly mode: "work" | "plan" | "review" }): MaybePromise<string | undefined>
  /** Replaces the operator's message before it is stored (never with an empty text). */
  onUserMessage?(m: { readonly text: string }): MaybePromise<{ readonly text: string } | undefined>
  /** `agent` is set on a subagent's turn (docs/agents.md): the task calls from the root's child down to it. */
  onTurnStarted?(t: { readonly text: string; readonly mode: string; readonly agent?: PluginAgentPath }): MaybePromise<void>
  onTurnFinished?(t: { readonly text: string; readonly mode: string; readonly stopReason: string; readonly agent?: PluginAgentPath }): MaybePromise<void>
  /** Changes texts of one outbound call (or drops images already on an item); same items, same order. */
  transformModel?(r: PluginModelRequest): MaybePromise<PluginModelRequest | undefined>
  onModelResponse?(r: {
    readonly purpose: "work" | "plan" | "side" | "compaction"
    readonly finishReason: string
    readonly items: ReadonlyArray<PluginModelItem>
    readonly usage: PluginUsage | undefined
  }): MaybePromise<void>
  /** Replaces the name or arguments of a call; the rewritten call is classified and approved again. */
  onToolCall?(c: { readonly id: string; readonly name: string; readonly arguments: unknown }): MaybePromise<
    { readonly name?: string | undefined; readonly arguments?: unknown } | undefined
  >
  /** Replaces a result's text, and its images on a turn whose model takes images. */
  onToolResult?(r: {
    readonly id: string
    readonly name: string
    readonly text: string
    readonly images: ReadonlyArray<PluginModelImage>
  }): MaybePromise<{ readonly text?: string | undefined; readonly images?: ReadonlyArray<PluginModelImage | PluginImageData> | undefined } | undefined>
  /** Raises the risk or asks for a prompt; never lowers the host's classification. */
  onApproval?(a: {
    readonly tool: string
    readonly arguments: unknown
    readonly risk: Risk
    readonly authority: Authority
    readonly scope: Scope
    readonly summary: string
  }): MaybePromise<{ readonly risk?: Risk | undefined; readonly ask?: true | undefined } | undefined>
  /** Appends facts to the compaction prompt or to the summary it produced. */
  onCompaction?(c: { readonly prompt: string; readonly summary?: string | undefined }): MaybePromise<
    { readonly appendToPrompt?: string | undefined; readonly appendToSummary?: string | undefined } | undefined
  >
}

/** Privileged: the operator is told at start that a plugin registered one; the host checks only what it cannot represent. */
export interface PluginRawHooks {
  rebuildModel?(r: PluginModelRequest): MaybePromise<PluginModelRequest | undefined>
  rewritePrompt?(p: { readonly mode: "work" | "plan" | "review" | "compaction"; readonly text: string }): MaybePromise<string | undefined>
  rewriteCompaction?(c: { readonly kind: "prompt" | "summary"; readonly text: string }): MaybePromise<string | undefined>
  rewriteApproval?(a: Classification): MaybePromise<Classification | undefined>
}

export interface Plugin {
  /** Defaults to the plugin's folder name. */
  readonly name?: string | undefined
  readonly hooks?: PluginHooks | undefined
  readonly rawHooks?: PluginRawHooks | undefined
  /** `{{name}}` values for the prompts; host-owned names are refused, the first plugin keeps a duplicate. */
  readonly placeholders?: Readonly<Record<string, () => MaybePromise<string | undefined>>> | undefined
}

/** The identity: it only gives a plugin object its type. */
export const definePlugin = <P extends Plugin>(plugin: P): P => plugin

export const hookNames = [
  "onSessionStarted",
  "onSessionEnded",
  "onPrompt",
  "onUserMessage",
  "onTurnStarted",
  "onTurnFinished",
  "transformModel",
  "onModelResponse",
  "onToolCall",
  "onToolResult",
  "onApproval",
  "onCompaction"
] as const satisfies ReadonlyArray<keyof PluginHooks>

export const rawHookNames = ["rebuildModel", "rewritePrompt", "rewriteCompaction", "rewriteApproval"] as const satisfies ReadonlyArray<
  keyof PluginRawHooks
>

export type HookName = (typeof hookNames)[number]
export type RawHookName = (typeof rawHookNames)[number]
