/** The line under the input: mode, approval mode, model, prompt set, context use, session cost, background tasks. */
import { clipText } from "./width.ts"
import { plural } from "../text/plural.ts"
import { formatUsd } from "../providers/cost.ts"

export interface StatusInfo {
  readonly mode: string
  readonly approval: string
  readonly model: string
  readonly promptSet: string
  /** Tokens the conversation occupies now (the latest request's input plus its answer). */
  readonly contextUsed: number
  readonly contextWindow: number
  /** The session's tokens so far, and their cost when every model used has a price. */
  readonly sessionTokens: { readonly input: number; readonly output: number; readonly usd: number | undefined }
  readonly runningTasks: number
}

export const compactNumber = (value: number): string => {
  if (value < 1000) return String(value)
  if (value < 10_000) return `${(value / 1000).toFixed(1).replace(/\.0$/, "")}k`
  if (value < 1_000_000) return `${Math.floor(value / 1000)}k`
  return `${(value / 1_000_000).toFixed(1).replace(/\.0$/, "")}M`
}

/** The cost when known ("$0.0123"), else the tokens alone ("12k in 3k out"); nothing before the first request. */
const sessionPart = (tokens: StatusInfo["sessionTokens"]): ReadonlyArray<string> => {
  if (tokens.input === 0 && tokens.output === 0) return []
  return [tokens.usd !== undefined ? formatUsd(tokens.usd) : `${compactNumber(tokens.input)} in ${compactNumber(tokens.output)} out`]
}

export const statusLine = (info: StatusInfo, width: number): string => {
  const percent = info.contextWindow > 0 ? Math.round((info.contextUsed / info.contextWindow) * 100) : 0
  const parts = [
    info.mode,
    `approval ${info.approval}`,
    info.model,
    `prompts ${info.promptSet}`,
    `ctx ${compactNumber(info.contextUsed)}/${compactNumber(info.contextWindow)} ${percent}%`,
    ...sessionPart(info.sessionTokens),
    ...(info.runningTasks > 0 ? [plural(info.runningTasks, "background task")] : [])
  ]
  return clipText(parts.join(" · "), width)
}
