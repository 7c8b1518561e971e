import * as path from "node:path"
import * as Schema from "effect/Schema"
import { allowEntryProblem } from "./address-ranges.ts"

/** Absolute, with an http: or https: scheme. */
export const isHttpURL = (text: string): boolean => URL.canParse(text) && /^https?:$/.test(new URL(text).protocol)

export const Protocol = Schema.Literal("openai-responses", "openai-chat", "deepseek", "anthropic", "gemini", "ollama")
export type Protocol = typeof Protocol.Type

const PositiveInt = Schema.Int.pipe(Schema.positive())
/** The media store's cap (SPEC I4), repeated here because config knows nothing of media. */
const maxStoredImageBytes = 20 * 1024 * 1024
const PositiveNumber = Schema.Number.pipe(Schema.positive())

export const ModelSettings = Schema.Struct({
  contextWindow: Schema.optional(PositiveInt),
  maxOutputTokens: Schema.optional(PositiveInt),
  imageInput: Schema.optional(Schema.Boolean),
  reasoning: Schema.optional(Schema.Boolean),
  /** The largest image file (bytes) and image side (pixels) the model takes; larger ones are shrunk to fit (docs/images.md). */
  maxImageBytes: Schema.optional(
    Schema.Number.pipe(
      Schema.filter((n) => Number.isInteger(n) && n >= 1024 && n <= maxStoredImageBytes, {
        message: () => `a whole number of bytes from 1024 to ${maxStoredImageBytes} (the 20 MiB image cap), e.g. 5242880`
      })
    )
  ),
  maxImagePixels: Schema.optional(
    Schema.Number.pipe(
      Schema.filter((n) => Number.isInteger(n) && n >= 64 && n <= 100_000, { message: () => "a whole number of pixels per side from 64 to 100000, e.g. 1568" })
    )
  ),
  /** Stored declarations only (SPEC I3): they change nothing about requests. */
  audioInput: Schema.optional(Schema.Boolean),
  videoInput: Schema.optional(Schema.Boolean)
})
export type ModelSettings = typeof ModelSettings.Type

/** An absolute http:// or https:// URL; anything else would only fail at the first request. */
export const HttpURL = Schema.String.pipe(
  Schema.filter(isHttpURL, {
    message: (issue) => `${JSON.stringify(issue.actual)} is not an http:// or https:// URL (e.g. "http://127.0.0.1:8080/v1")`
  })
)

export const ProviderSettings = Schema.Struct({
  protocol: Schema.optional(Protocol),
  baseURL: Schema.optional(HttpURL),
  /** Name of the environment variable holding the API key; keys never live in config.json. */
  apiKeyEnv: Schema.optional(Schema.String),
  headers: Schema.optional(Schema.Record({ key: Schema.String, value: Schema.String })),
  models: Schema.optional(Schema.Record({ key: Schema.String, value: ModelSettings }))
})
export type ProviderSettings = typeof ProviderSettings.Type

/** SPEC S2: when the conversation is compacted, and how much of it stays verbatim. */
export const CompactionSettings = Schema.Struct({
  /** false: only /compact compacts. */
  auto: Schema.optional(Schema.Boolean),
  /** Share of the model's context window the next request may fill before it is compacted. */
  threshold: Schema.optional(
    Schema.Number.pipe(Schema.greaterThan(0), Schema.lessThanOrEqualTo(1), Schema.annotations({ message: () => "a share of the context window above 0 and at most 1 (e.g. 0.85)" }))
  ),
  /** Tokens of the most recent messages kept verbatim after a compaction. */
  keepRecentTokens: Schema.optional(
    Schema.Number.pipe(Schema.filter((n) => Number.isInteger(n) && n >= 0, { message: () => "a whole number of tokens, 0 or more" }))
  )
}).annotations({ identifier: 'an object like {"threshold": 0.85, "keepRecentTokens": 20000}' })
export type CompactionSettings = typeof CompactionSettings.Type

const EnvName = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z_][A-Za-z0-9_]*$/, { message: () => "an environment variable name (letters, digits and _, not starting with a digit)" }),
  Schema.annotations({ identifier: "an environment variable name" })
)
const EnvPattern = Schema.String.pipe(
  Schema.pattern(/^[A-Za-z0-9_*]+$/, { message: () => "an environment variable name, or a pattern with * (e.g. \"AWS_*\")" }),
  Schema.annotations({ identifier: "a variable name" })
)
const EnvPatterns = Schema.Array(EnvPattern).annotations({ identifier: 'a list of variable names or patterns (e.g. ["AWS_*", "GITHUB_TOKEN"])' })

/**
 * The environment shell commands get (SPEC T5; README "Secrets"). Provider keys are never passed,
 * whatever this says: `exclude` adds names, it cannot take them away.
 */
export const ShellEnvSettings = Schema.Struct({
  /** true (default): Crystal's environment minus the excluded names; false: only PATH, HOME, locale and terminal; a list: those names too. */
  inherit: Schema.optional(
    Schema.Union(Schema.Boolean, EnvPatterns).annotations({ identifier: 'true, false, or a list of variable names (e.g. ["PATH", "NODE_*"])' })
  ),
  /** More names (or patterns with *) never passed, and whose values are redacted from tool outputs. */
  exclude: Schema.optional(EnvPatterns),
  /** Variables set for every command, over what is inherited. */
  set: Schema.optional(Schema.Record({ key: EnvName, value: Schema.String }))
}).annotations({
  identifier: 'an object like {"inherit": true, "exclude": ["AWS_*"], "set": {"CI": "1"}}',
  parseOptions: { onExcessProperty: "error" }
})
export type ShellEnvSettings = typeof ShellEnvSettings.Type

/** How long a model request may wait on a server's retry-after before the turn fails instead. */
export const RetrySettings = Schema.Struct({
  maxWaitSeconds: Schema.optional(
    Schema.Number.pipe(Schema.filter((n) => Number.isFinite(n) && n >= 0, { message: () => "a number of seconds, 0 or more (e.g. 60)" }))
  )
}).annotations({ identifier: 'an object like {"maxWaitSeconds": 60}' })
export type RetrySettings = typeof RetrySettings.Type

const McpTimeout = Schema.Number.pipe(
  Schema.filter((n) => Number.isFinite(n) && n > 0 && n <= 86_400, { message: () => "a number of seconds above 0 and at most 86400 (e.g. 30)" })
)
const ToolNames = Schema.Array(Schema.String).annotations({ identifier: 'a list of the server\'s tool names (e.g. ["echo", "get-sum"])' })
const StringMap = Schema.Record({ key: Schema.String, value: Schema.String }).annotations({ identifier: 'an object of strings (e.g. {"TOKEN": "${env:TOKEN}"})' })

/** What every server entry may say besides how to reach it (SPEC B4; README "MCP servers"). */
const mcpCommon = {
  enabled: Schema.optional(Schema.Boolean),
  startupTimeoutSeconds: Schema.optional(McpTimeout),
  toolTimeoutSeconds: Schema.optional(McpTimeout),
  /** Only these tools (by the server's names) are offered; `deny` removes more. */
  tools: Schema.optional(
    Schema.Struct({ allow: Schema.optional(ToolNames), deny: Schema.optional(ToolNames) }).annotations({
      identifier: 'an object like {"allow": ["echo"], "deny": ["get-env"]}',
      parseOptions: { onExcessProperty: "error" }
    })
  ),
  /** true: a tool the server marks readOnlyHint is classified as a read (default false: every tool is at least write). */
  trustAnnotations: Schema.optional(Schema.Boolean),
  /** true: the server may ask the session's model (sampling/createMessage), each request approved by the operator (default false). */
  sampling: Schema.optional(Schema.Boolean)
}

/**
 * One server: `command` (stdio, with args/env/cwd) or `url` (streamable HTTP, falling back to the
 * old HTTP+SSE transport, with headers). One struct rather than a union, so that a bad entry is
 * one error naming the field, not a list of every alternative's complaints.
 */
export const McpServerSettings = Schema.Struct({
  command: Schema.optional(Schema.String.pipe(Schema.minLength(1, { message: () => 'a program to run (e.g. "npx")' }))),
  args: Schema.optional(Schema.Array(Schema.String).annotations({ identifier: "a list of strings" })),
  env: Schema.optional(StringMap),
  cwd: Schema.optional(Schema.String),
  url: Schema.optional(
    Schema.String.pipe(
      Schema.filter((text) => isHttpURL(text.replace(/\$\{env:[A-Za-z_][A-Za-z0-9_]*\}/g, "x")), {
        message: (issue) => `${JSON.stringify(issue.actual)} is not an http:// or https:// URL (e.g. "http://127.0.0.1:3001/mcp")`
      })
    )
  ),
  headers: Schema.optional(StringMap),
  ...mcpCommon
}).pipe(
  Schema.filter((server) => {
    if (server.command === undefined && server.url === undefined) return 'needs "command" (a stdio server) or "url" (an HTTP server)'
    if (server.command !== undefined && server.url !== undefined) return 'has both "command" and "url": a server is either stdio or HTTP'
    const misplaced = server.url !== undefined ? ["args", "env", "cwd"].find((key) => key in server) : "headers" in server ? "headers" : undefined
    if (misplaced !== undefined) return `"${misplaced}" belongs to ${server.url !== undefined ? 'a stdio server ("command")' : 'an HTTP server ("url")'}`
    return true
  })
)
export type McpServerSettings = typeof McpServerSettings.Type

export const McpServers = Schema.Record({ key: Schema.String, value: McpServerSettings }).annotations({ identifier: 'an object of servers by name, like {"files": {"command": "npx", "args": [...]}}' }).pipe(
  Schema.filter((servers) => {
    const bad = Object.keys(servers).find((name) => !/^[A-Za-z0-9_-]{1,32}$/.test(name))
    return bad === undefined ? true : `${JSON.stringify(bad)} is not a server name: 1-32 letters, digits, _ or - (it becomes part of the tool names)`
  })
)
export type McpServers = typeof McpServers.Type

/** The folders `plans.directory` names, `\\` read as `/`, "." and empty parts dropped (a ".." can only lead). */
export const plansFolders = (text: string): ReadonlyArray<string> =>
  path.posix
    .normalize(text.replaceAll("\\", "/"))
    .split("/")
    .filter((part) => part !== "" && part !== ".")

/**
 * What is wrong with `plans.directory` (undefined when nothing is): a folder written relative to
 * the workspace that stays inside it. Links are not followed here (the workspace is not known when
 * config.json is read); the plan file's writer refuses a folder that is a link (src/files/confined-write.ts).
 */
export const plansDirectoryProblem = (text: string): string | undefined => {
  const example = 'a folder inside the workspace, relative to it (e.g. ".crystal/plans")'
  if (text.trim() === "") return `expected ${example}, got an empty path`
  if (path.isAbsolute(text) || text.startsWith("~") || /^[A-Za-z]:/.test(text)) return `${JSON.stringify(text)} is not relative to the workspace; expected ${example}`
  if (plansFolders(text)[0] === "..") return `${JSON.stringify(text)} leads outside the workspace; expected ${example}`
  return undefined
}

/** Where plan files go (docs/plans.md); absent: ~/.crystal/plans. */
export const PlansSettings = Schema.Struct({
  directory: Schema.optional(
    Schema.String.pipe(
      Schema.filter((text) => plansDirectoryProblem(text) ?? true),
      Schema.annotations({ identifier: 'a folder inside the workspace (e.g. ".crystal/plans")' })
    )
  )
}).annotations({ identifier: 'an object like {"directory": ".crystal/plans"}', parseOptions: { onExcessProperty: "error" } })
export type PlansSettings = typeof PlansSettings.Type

const PricePerMillion = Schema.Number.pipe(
  Schema.filter((n) => Number.isFinite(n) && n >= 0, { message: () => "US dollars per million tokens, 0 or more (e.g. 3)" })
)

/** A model's price in US dollars per million tokens (README "Usage and cost"); the cache prices default to the input price. */
export const PriceSettings = Schema.Struct({
  input: PricePerMillion,
  output: PricePerMillion,
  /** Input read from the prompt cache. */
  cachedInput: Schema.optional(PricePerMillion),
  /** Input written to the prompt cache. */
  cacheWrite: Schema.optional(PricePerMillion)
}).annotations({ identifier: 'an object like {"input": 3, "output": 15, "cachedInput": 0.3, "cacheWrite": 3.75}', parseOptions: { onExcessProperty: "error" } })
export type PriceSettings = typeof PriceSettings.Type

/** Prices by "provider/model", over the built-in table (src/providers/pricing.ts). */
export const PricingSettings = Schema.Record({ key: Schema.String, value: PriceSettings }).annotations({
  identifier: 'an object of prices by PROVIDER/MODEL, like {"openai/gpt-5.4": {"input": 1.25, "output": 10}}'
}).pipe(
  Schema.filter((prices) => {
    const bad = Object.keys(prices).find((ref) => !/^[^/\s]+\/\S+$/.test(ref))
    return bad === undefined ? true : `${JSON.stringify(bad)} is not PROVIDER/MODEL (e.g. "openai/gpt-5.4")`
  })
)

/** web_fetch's settings (docs/web-fetch.md); `false` in config.json means the tool is not offered. */
export const WebFetchSettings = Schema.Struct({
  /** Host names, IP addresses or CIDR ranges web_fetch may reach although they are private (loopback, LAN, link-local). */
  allowPrivate: Schema.optional(Schema.Array(Schema.String.pipe(Schema.filter((entry) => allowEntryProblem(entry) ?? true))))
}).annotations({ identifier: 'an object like {"allowPrivate": ["127.0.0.1", "intranet.example"]}', parseOptions: { onExcessProperty: "error" } })
export type WebFetchSettings = typeof WebFetchSettings.Type

const wholeBytes = (example: string) =>
  Schema.Number.pipe(Schema.filter((n) => Number.isSafeInteger(n) && n > 0, { message: () => `a whole number of bytes above 0 (e.g. ${example})` }))

/** Checkpoints' bounds (docs/checkpoints.md "Storage and bounds"); absent keys take the defaults there. */
export const CheckpointsSettings = Schema.Struct({
  /** Files larger than this are not recorded (noted in the snapshot); default 10485760 (10 MiB). */
  maxFileBytes: Schema.optional(wholeBytes("10485760")),
  /** The store's bound per workspace; default 2147483648 (2 GiB). */
  maxBytes: Schema.optional(wholeBytes("2147483648")),
  /** Checkpoints older than this many days are pruned; default 30. */
  keepDays: Schema.optional(Schema.Number.pipe(Schema.filter((n) => Number.isFinite(n) && n > 0, { message: () => "a number of days above 0 (e.g. 30)" })))
}).annotations({ identifier: 'an object like {"maxFileBytes": 10485760, "maxBytes": 2147483648, "keepDays": 30}', parseOptions: { onExcessProperty: "error" } })
export type CheckpointsSettings = typeof CheckpointsSettings.Type

export const BackgroundTimeout = Schema.Union(PositiveNumber, Schema.Null, Schema.Literal("unlimited"))

/** Subagents (docs/agents.md): how many `task` calls of one step run at once, and how deep children may nest. */
export const AgentsSettings = Schema.Struct({
  maxParallel: Schema.optional(PositiveInt.annotations({ message: () => "a whole number of children, 1 or more" })),
  /** 0: no `task` tool at all; 1: the session's children cannot start their own; 2 (default): they can, once. */
  maxDepth: Schema.optional(Schema.Int.pipe(Schema.between(0, 8, { message: () => "a whole number of levels from 0 to 8" })))
}).annotations({ identifier: 'an object like {"maxParallel": 4, "maxDepth": 2}' })
export type AgentsSettings = typeof AgentsSettings.Type

export const agentsDefaults = { maxParallel: 4, maxDepth: 2 } as const

export const Config = Schema.Struct({
  model: Schema.optional(Schema.String),
  providers: Schema.optional(Schema.Record({ key: Schema.String, value: ProviderSettings })),
  bashTimeoutSeconds: Schema.optional(PositiveNumber),
  backgroundBashTimeoutSeconds: Schema.optional(BackgroundTimeout),
  /** false: no tool sets are discovered (SPEC X1). */
  externalTools: Schema.optional(Schema.Boolean),
  /** true: every workspace's tool sets are offered without the trust question (SPEC B2). */
  trustProjectTools: Schema.optional(Schema.Boolean),
  skills: Schema.optional(Schema.Boolean),
  /** The model describe_image asks (SPEC I7); it must take images (checked at start, see src/providers/image-model.ts). */
  imageModel: Schema.optional(
    Schema.String.pipe(
      Schema.filter((ref) => /^[^/\s]+\/\S+$/.test(ref), { message: (issue) => `expected PROVIDER/MODEL (e.g. "openai/gpt-5.4"), got ${JSON.stringify(issue.actual)}` })
    )
  ),
  /** Model requests one turn may make before it is ended with a note. */
  maxSteps: Schema.optional(PositiveInt),
  compaction: Schema.optional(CompactionSettings),
  retry: Schema.optional(RetrySettings),
  shellEnv: Schema.optional(ShellEnvSettings),
  /** MCP servers whose tools join the session's (SPEC B4). */
  mcpServers: Schema.optional(McpServers),
  /** Where each session's plan file is kept (docs/plans.md). */
  plans: Schema.optional(PlansSettings),
  /** Model prices for the cost shown with usage; a model priced nowhere shows tokens only. */
  pricing: Schema.optional(PricingSettings),
  /** false: web_fetch is not offered; an object: its settings. */
  webFetch: Schema.optional(Schema.Union(WebFetchSettings, Schema.Boolean)),
  agents: Schema.optional(AgentsSettings),
  /** The checkpoint store's bounds (docs/checkpoints.md). */
  checkpoints: Schema.optional(CheckpointsSettings)
})
export type Config = typeof Config.Type

/** Values a saved config.json omits because they are what an absent key means. */
export const configDefaults = {
  bashTimeoutSeconds: 120,
  backgroundBashTimeoutSeconds: 10800,
  externalTools: true,
  trustProjectTools: false,
  skills: true,
  maxSteps: 100
} as const satisfies Partial<Config>

export const retryDefaults = { maxWaitSeconds: 60 } as const

export const compactionDefaults = { auto: true, threshold: 0.85, keepRecentTokens: 20_000 } as const

/** Keys older builds wrote; ignored on load and dropped on the next save (SPEC E7). */
export const legacyKeys = ["promptSet", "promptAttachments"] as const
