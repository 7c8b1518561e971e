/**
 * propose_plan's dialog (docs/plans.md): the plan, then Start working on it / Keep planning (with
 * an optional comment to the model) / Edit ($VISUAL, else $EDITOR, else vi, on the plan file; the
 * plan is read again when the editor exits and shown again).
 */
import { spawnSync } from "node:child_process"
import type { PlanDecision, PlanProposal } from "../plans/proposal.ts"
import type { Palette } from "../terminal/colors.ts"
import { codeOf } from "../text/error-text.ts"
import type { DialogIo, InertPrompts } from "./inert-prompts.ts"


export interface PlanDialogHost {
  readonly commit: (lines: ReadonlyArray<string>) => void
  readonly env: Readonly<Record<string, string | undefined>>
}

/** The editor the operator set, as a shell word list (git's rule: "code --wait" works). */
export const editorCommand = (env: Readonly<Record<string, string | undefined>>): string => {
  const set = (name: string) => (env[name] ?? "").trim()
  return set("VISUAL") || set("EDITOR") || "vi"
}

/**
 * Runs the editor on `file` with the terminal handed over (raw mode off) and waits for it; what
 * went wrong, if anything. The file is the shell's "$1", never part of the command text.
 */
export const editFile = (file: string, env: Readonly<Record<string, string | undefined>>): string | undefined => {
  const editor = editorCommand(env)
  const stdin = process.stdin
  const wasRaw = stdin.isTTY && stdin.isRaw
  if (wasRaw) stdin.setRawMode(false)
  try {
    const ran = spawnSync("sh", ["-c", `${editor} "$1"`, "sh", file], { stdio: "inherit", env: { ...env } })
    if (ran.error !== undefined) return `the editor (${editor}) could not start (${codeOf(ran.error)})`
    if (ran.status !== 0) return `the editor (${editor}) exited with ${ran.status ?? ran.signal}; the plan is read as it is now`
    return undefined
  } finally {
    if (wasRaw) stdin.setRawMode(true)
  }
}

const planLines = (path: string, text: string, palette: Palette): ReadonlyArray<string> => [
  `${palette.yellow("?")} ${palette.bold("The plan is ready")} ${palette.dim(path)}`,
  ...text.replace(/\n$/, "").split("\n").map((line) => `  ${line}`)
]

export const choosePlan = async (prompts: InertPrompts, io: DialogIo, plan: PlanProposal, host: PlanDialogHost, palette: Palette): Promise<PlanDecision> => {
  let text = plan.text
  for (;;) {
    host.commit(planLines(plan.path, text, palette))
    const choice = await prompts.select({
      message: "What next?",
      options: [
        { value: "start", label: "Start working on it", hint: "work mode; the plan is the next turn's instruction" },
        { value: "keep", label: "Keep planning", hint: "with an optional comment to the model" },
        { value: "edit", label: "Edit", hint: `${editorCommand(host.env)} on the plan file` }
      ],
      ...io
    })
    if (prompts.isCancel(choice)) return { _tag: "KeepPlanning", comment: "" }
    if (choice === "start") return { _tag: "StartWorking" }
    if (choice === "keep") {
      const comment = await prompts.text({ message: "Comment to the model (optional)", placeholder: "what to change; Enter sends none", ...io })
      return { _tag: "KeepPlanning", comment: prompts.isCancel(comment) ? "" : (comment ?? "") }
    }
    const problem = editFile(plan.path, host.env)
    if (problem !== undefined) host.commit([palette.yellow(problem)])
    const now = plan.reread()
    if (now === undefined) host.commit([palette.yellow(`${plan.path} could not be read after the edit; the plan shown is the one before it`)])
    else text = now
  }
}
