/**
 * The one-time trust question (SPEC B2): every untrusted entry of a workspace (tool sets, MCP
 * servers, agent files that name their own model: whoever gathers them passes them all at once)
 * is named with what it runs, the operator is asked once, and a yes is stored under the Crystal home. `assume` (--trust-project-tools, or
 * config "trustProjectTools": true) trusts them without asking and without storing anything.
 */
import * as Effect from "effect/Effect"
import { visible } from "../terminal/inert.ts"
import { trust, untrustedEntries, type TrustEntry } from "./trust-store.ts"
import { messageOf } from "../text/error-text.ts"

export interface TrustAsker {
  /** A yes/no question; `defaultAnswer` is what silence (no person) means. */
  readonly confirm: (question: string, defaultAnswer: boolean) => Effect.Effect<boolean>
}

export interface TrustDecision {
  /** Entries that may run now: trusted before, trusted now, or assumed. */
  readonly trusted: ReadonlyArray<TrustEntry>
  readonly refused: ReadonlyArray<TrustEntry>
  readonly notes: ReadonlyArray<string>
}

const kindLabel = (entry: TrustEntry): string => (entry.kind === "tools" ? "tool set" : entry.kind === "mcp" ? "MCP server" : "agent")

/** Tool sets and servers run programs; an agent file only picks the model the conversation goes to. */
const isAgent = (entry: TrustEntry): boolean => entry.kind === "agent"

/** Each entry's line and the lines under it; inert, since every name and value comes from the repository. */
export const entryLines = (entries: ReadonlyArray<TrustEntry>): ReadonlyArray<string> =>
  entries.flatMap((entry) => [`  ${kindLabel(entry)} ${entry.name}: ${entry.describe}`, ...entry.details.map((line) => `      ${line}`)].map(withVisibleBreaks))

/** A line stays one line: a newline the repository slipped in cannot draw a line of its own. */
const withVisibleBreaks = (line: string): string => visible(line).replace(/[\n\t]/g, (char) => (char === "\n" ? "\u2424" : "\u2409"))

export const trustQuestion = (workspace: string, entries: ReadonlyArray<TrustEntry>): string => {
  const agents = entries.some(isAgent)
  const programs = entries.some((entry) => !isAgent(entry))
  const supplies = !agents ? "programs the model could run" : programs ? "programs the model could run and agents that pick their own model" : "agents that pick their own model"
  return [`${withVisibleBreaks(workspace)} supplies ${supplies}:`, ...entryLines(entries), "Trust them? (asked again when they change)"].join("\n")
}

export const decideTrust = (options: {
  readonly home: string
  readonly workspace: string
  readonly entries: ReadonlyArray<TrustEntry>
  readonly assume: boolean
  readonly asker: TrustAsker
}): Effect.Effect<TrustDecision> =>
  Effect.gen(function* () {
    if (options.entries.length === 0) return { trusted: [], refused: [], notes: [] }
    if (options.assume) return { trusted: options.entries, refused: [], notes: [] }
    let pending: ReadonlyArray<TrustEntry>
    try {
      pending = untrustedEntries(options.home, options.entries)
    } catch (error) {
      return { trusted: [], refused: options.entries, notes: [`${messageOf(error)}; the workspace's tools stay off`] }
    }
    if (pending.length === 0) return { trusted: options.entries, refused: [], notes: [] }
    const yes = yield* options.asker.confirm(trustQuestion(options.workspace, pending), false)
    const before = options.entries.filter((entry) => !pending.includes(entry))
    if (!yes) {
      const names = (entries: ReadonlyArray<TrustEntry>) => entries.map((entry) => entry.name).join(", ")
      const how = `(from ${options.workspace}; answer yes when asked, or pass --trust-project-tools)`
      const programs = pending.filter((entry) => !isAgent(entry))
      const agents = pending.filter(isAgent)
      // What they would run, as the question put it: `crystal run` shows no question, only this note.
      return {
        trusted: before,
        refused: pending,
        notes: [
          ...(programs.length === 0 ? [] : [[`not offered until you trust them: ${names(programs)} ${how}`, ...entryLines(programs)].join("\n")]),
          ...(agents.length === 0 ? [] : [[`agents run on the session's model until you trust them: ${names(agents)} ${how}`, ...entryLines(agents)].join("\n")])
        ]
      }
    }
    const stored = yield* Effect.tryPromise(() => trust(options.home, pending)).pipe(
      Effect.as<string | undefined>(undefined),
      Effect.catchAll((error) => Effect.succeed(`trusted for this session only: ${messageOf(error.error)}`))
    )
    return { trusted: options.entries, refused: [], notes: stored === undefined ? [] : [stored] }
  })
