/**
 * The session flags shared by `crystal`, `crystal space` and `crystal run`, declared once. The @effect/cli tree and
 * the start-up fast path (fast-args.ts) are both built from this table, and a parity test holds
 * them to the same results.
 */
import type { SessionRequest } from "../../layers/prepare.ts"

export type OutputFormat = "text" | "json"

export interface SessionFlags extends SessionRequest {
  readonly format: OutputFormat
  /** Image files attached to the `crystal run` prompt. */
  readonly image: ReadonlyArray<string>
  readonly trustProjectTools: boolean
}

export interface FlagSpec {
  readonly name: string
  readonly kind: "value" | "repeated" | "choice" | "switch"
  readonly choices?: ReadonlyArray<string>
  readonly placeholder?: string
  readonly description: string
}

export const sessionFlagSpecs = {
  model: {
    name: "model",
    kind: "value",
    placeholder: "PROVIDER/MODEL",
    description: "Model to use, e.g. openai/gpt-5.1 or local/qwen3-coder (default: config.json \"model\", then the first provider found in the environment)"
  },
  mode: {
    name: "mode",
    kind: "choice",
    choices: ["plan", "work"],
    description: "plan: read-only tools, nothing can be changed or run; work: every tool (default: work, or the resumed session's mode)"
  },
  approval: {
    name: "approval",
    kind: "choice",
    choices: ["plan", "default", "edit", "review", "audit", "full"],
    description:
      "Which calls run without asking: plan (reads only), default (reads inside the workspace), edit (+ workspace edits), review (a reviewer model decides the rest), audit (nothing), full (all but forbidden calls and writes outside the workspace)"
  },
  disableTool: {
    name: "disable-tool",
    kind: "repeated",
    placeholder: "NAME",
    description: "Remove a built-in tool for this process (repeatable; unknown names refuse to start)"
  },
  promptSet: {
    name: "prompt-set",
    kind: "value",
    placeholder: "NAME",
    description:
      "Use the prompt set ~/.crystal/promptsets/NAME for this process, even if disabled (\"default\": the built-in prompts); /promptset cannot switch it"
  },
  promptAttachments: {
    name: "prompt-attachments",
    kind: "choice",
    choices: ["on", "off"],
    description: "on (default): attach the enabled prompt attachments; off: attach none, and refuse to enable, disable or reorder them"
  },
  promptAttachment: {
    name: "prompt-attachment",
    kind: "repeated",
    placeholder: "NAME",
    description: "Attach the prompt attachment NAME after the enabled ones for this process, even if disabled (repeatable)"
  },
  image: {
    name: "image",
    kind: "repeated",
    placeholder: "FILE",
    description: "Attach the image FILE (png, jpeg, gif or webp) to the crystal run prompt (repeatable; the model must take images)"
  },
  format: {
    name: "format",
    kind: "choice",
    choices: ["text", "json"],
    description: "text: the answer on stdout, progress on stderr; json: one JSON event per line on stdout"
  },
  resume: {
    name: "resume",
    kind: "value",
    placeholder: "ID",
    description: "Continue the saved session ID (an unambiguous prefix is enough)"
  },
  continue: {
    name: "continue",
    kind: "switch",
    description: "Continue the most recent session of this workspace"
  },
  trustProjectTools: {
    name: "trust-project-tools",
    kind: "switch",
    description: "Offer this workspace's tool sets (.crystal/tools) without asking; nothing is stored (interactive sessions ask once and remember)"
  }
} as const satisfies Record<keyof SessionFlags, FlagSpec>

export const defaultSessionFlags: SessionFlags = {
  model: undefined,
  mode: undefined,
  approval: undefined,
  disableTool: [],
  promptSet: undefined,
  promptAttachments: "on",
  promptAttachment: [],
  format: "text",
  image: [],
  resume: undefined,
  continue: false,
  trustProjectTools: false
}

/** What the command line asks for, however it was parsed. */
export type Invocation =
  | { readonly _tag: "Run"; readonly prompt: string | undefined; readonly flags: SessionFlags }
  | { readonly _tag: "Chat"; readonly flags: SessionFlags }
  /** `crystal space [DIR]`: a conversation in DIR, or in a workspace picked from the saved sessions. */
  | { readonly _tag: "Space"; readonly dir: string | undefined; readonly flags: SessionFlags }
