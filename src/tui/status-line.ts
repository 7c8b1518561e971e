/** The line under the input: mode, approval mode, model, prompt set, context use, background tasks. */
import { clipText } from "./width.ts"
import { plural } from "../text/plural.ts"

export interface StatusInfo {
  readonly mode: string
  readonly approval: string
  readonly model: string
  readonly promptSet: string
  /** Tokens the conversation occupies now (the latest request's input plus its answer). */
  readonly contextUsed: number
  readonly contextWindow: number
  readonly runningTasks: number
}

export const compactNumber = (value: number): string => {
  if (value < 1000) return String(value)
  if (value < 10_000) return `${(value / 1000).toFixed(1).replace(/\.0$/, "")}k`
  if (value < 1_000_000) return `${Math.floor(value / 1000)}k`
  return `${(value / 1_000_000).toFixed(1).replace(/\.0$/, "")}M`
}

export const statusLine = (info: StatusInfo, width: number): string => {
  const percent = info.contextWindow > 0 ? Math.round((info.contextUsed / info.contextWindow) * 100) : 0
  const parts = [
    info.mode,
    `approval ${info.approval}`,
    info.model,
    `prompts ${info.promptSet}`,
    `ctx ${compactNumber(info.contextUsed)}/${compactNumber(info.contextWindow)} ${percent}%`,
    ...(info.runningTasks > 0 ? [plural(info.runningTasks, "background task")] : [])
  ]
  return clipText(parts.join(" · "), width)
}
