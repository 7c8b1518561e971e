/**
 * The Operator of an interactive session: the approval dialog (SPEC A7) and the question tool's
 * dialog (SPEC T3), drawn with @clack/prompts below the conversation. While one is open the
 * input editor is hidden and clack owns the keyboard; Ctrl+C there also cancels the turn.
 */
import * as Effect from "effect/Effect"
import type { Readable, Writable } from "node:stream"
import { agentPathLabel } from "../agents/definition.ts"
import type { ApprovalAnswer, ApprovalRequest, OperatorShape } from "../engine/operator.ts"
import type { Question, QuestionAnswer, QuestionsOutcome } from "../tools/questions.ts"
import type { SessionSummary } from "../session/store.ts"
import type { RecentWorkspace } from "../session/workspaces.ts"
import type { Palette } from "../terminal/colors.ts"
import { callDiff } from "./turn-view.ts"
import { visible, visibleValue } from "../terminal/inert.ts"
import { inertPrompts, type DialogIo, type InertPrompts } from "./inert-prompts.ts"
import { plural } from "../text/plural.ts"
import { bashToolNames } from "../tools/bash-specs.ts"
import { webFetchGrantHost, webFetchToolName } from "../tools/web-fetch-spec.ts"
import { choosePlan } from "./plan-dialog.ts"

export interface DialogHost {
  /** Hides the live region and hands the keyboard over; returns how to take it back. */
  readonly takeOver: () => void
  readonly giveBack: () => void
  readonly commit: (lines: ReadonlyArray<string>) => void
  readonly columns: () => number
  readonly output: Writable
  readonly input: Readable
  /** Ctrl+C was pressed inside a dialog. */
  readonly interruptTurn: () => void
}

const customValue = "\u0000custom"

export interface Dialogs extends OperatorShape {
  /** /resume's picker: the chosen session's id, or undefined when dismissed. */
  readonly pickSession: (sessions: ReadonlyArray<SessionSummary>) => Effect.Effect<string | undefined>
  /** /space's picker: the chosen directory, or undefined when dismissed. */
  readonly pickWorkspace: (workspaces: ReadonlyArray<RecentWorkspace>, current?: string) => Effect.Effect<string | undefined>
  /** A plain select (/rewind): the chosen value, or undefined when dismissed. */
  readonly choose: (message: string, options: ReadonlyArray<{ readonly value: string; readonly label: string; readonly hint?: string }>) => Effect.Effect<string | undefined>
}

const when = (iso: string): string => iso.slice(0, 16).replace("T", " ")

/** Choices for a workspace picker (here and `crystal space`). */
export const workspaceOptions = (workspaces: ReadonlyArray<RecentWorkspace>, current?: string) =>
  workspaces.map((workspace) => ({
    value: workspace.dir,
    label: workspace.dir,
    hint: `${workspace.dir === current ? "current · " : ""}${when(workspace.updatedAt)} · ${plural(workspace.sessions, "session")}`
  }))

/** `crystal space` before any session: the picker on the plain terminal. */
export const pickWorkspaceAlone = (workspaces: ReadonlyArray<RecentWorkspace>): Effect.Effect<string | undefined> =>
  Effect.promise(async () => {
    const prompts = inertPrompts(await import("@clack/prompts"))
    const choice = await prompts.select({ message: "Which workspace?", options: workspaceOptions(workspaces, process.cwd()), maxItems: 10 })
    return prompts.isCancel(choice) ? undefined : choice
  })

/** A longer command is cut here, and says so: what is approved must never be hidden silently. */
const maxCommandLines = 40


/** Which subagent asks (`task 2 › explore`), inert; undefined when the root session itself asks. */
const askingAgent = (request: ApprovalRequest): string | undefined =>
  request.agent === undefined || request.agent.length === 0 ? undefined : visible(agentPathLabel(request.agent)).replace(/[\n\t]/g, " ")

/**
 * What the approval dialog shows above its choices: the call, which subagent asks (when one
 * does), its classification, its diff or command.
 */
export const approvalLines = (request: ApprovalRequest, palette: Palette, columns: number): Array<string> => {
  const c = { ...request.classification, summary: visible(request.classification.summary) }
  const preview: Array<string> = []
  const call = { id: "", name: request.toolName, arguments: visibleValue(request.arguments) }
  preview.push(...callDiff(call, palette, columns))
  const args = call.arguments as Record<string, unknown> | undefined
  if (request.toolName === bashToolNames.bash || request.toolName === bashToolNames.bashStart) {
    const command = typeof args?.["command"] === "string" ? args["command"] : ""
    const lines = command.split("\n")
    preview.push(...lines.slice(0, maxCommandLines).map((line) => `    ${palette.cyan(line)}`))
    if (lines.length > maxCommandLines) preview.push(palette.yellow(`    … ${lines.length - maxCommandLines} more lines of this command are not shown`))
  }
  const agent = askingAgent(request)
  return [
    `${palette.yellow("?")} ${palette.bold(`Allow ${request.toolName}: ${c.summary}`)}`,
    ...(agent === undefined ? [] : [`  ${palette.magenta(`asked by subagent ${agent}`)}`]),
    palette.dim(`  risk ${c.risk} · ${c.authority} · ${c.scope} · approval mode ${request.mode}`),
    ...preview
  ]
}

/** The allow-for-this-session choice: web_fetch's grant is its URL's host, so the choice says so. */
const sessionOption = (request: ApprovalRequest): { value: "AllowSession"; label: string; hint: string } => {
  const host = request.toolName === webFetchToolName ? webFetchGrantHost(request.classification.grantKey) : undefined
  return host !== undefined
    ? { value: "AllowSession", label: "Allow this host for the session", hint: `every web_fetch from ${visible(host)}` }
    : { value: "AllowSession", label: "Allow for this session", hint: "the same tool and command prefix or path" }
}

const chooseApproval = async (prompts: InertPrompts, io: DialogIo, request: ApprovalRequest): Promise<ApprovalAnswer> => {
  const options: Array<{ value: ApprovalAnswer["_tag"] | "DenyMessage"; label: string; hint?: string }> = [
    { value: "AllowOnce", label: "Allow once" },
    ...(request.classification.grantKey === undefined ? [] : [sessionOption(request)]),
    { value: "Deny", label: "Deny" },
    { value: "DenyMessage", label: "Deny with a message to the model" }
  ]
  const agent = askingAgent(request)
  const choice = await prompts.select({ message: agent === undefined ? `Allow ${request.toolName}?` : `Allow ${request.toolName} for ${agent}?`, options, ...io })
  if (prompts.isCancel(choice) || choice === "Deny") return { _tag: "Deny" } as const
  if (choice === "AllowOnce") return { _tag: "AllowOnce" } as const
  if (choice === "AllowSession") return { _tag: "AllowSession" } as const
  const message = await prompts.text({ message: "Message to the model", placeholder: "why not, or what to do instead", ...io })
  return prompts.isCancel(message) || message.trim() === "" ? ({ _tag: "Deny" } as const) : ({ _tag: "Deny", message: message.trim() } as const)
}

/** One question; undefined when dismissed. */
const askOne = async (prompts: InertPrompts, io: DialogIo, question: Question, position: string): Promise<QuestionAnswer | undefined> => {
  const options = [
    ...question.options.map((option) => ({ value: option.label, label: option.label, hint: option.description })),
    ...(question.allowCustom ? [{ value: customValue, label: "Type your own answer…" }] : [])
  ]
  const message = `${question.header}${position}: ${question.question}`
  const initial = question.options.map((option) => option.label).filter((label) => question.initial?.includes(label) === true)
  const picked = question.multiSelect
    ? await prompts.multiselect({ message, options, required: false, initialValues: initial, ...io })
    : await prompts.select({ message, options, ...(initial[0] === undefined ? {} : { initialValue: initial[0] }), ...io })
  if (prompts.isCancel(picked)) return undefined
  const labels = Array.isArray(picked) ? picked : [picked]
  // A multi-select gives its values in the order they were ticked; an answer lists them as shown.
  const selected = question.options.map((option) => option.label).filter((label) => labels.includes(label))
  if (!labels.includes(customValue)) return { selected }
  const custom = await prompts.text({ message: `${question.header}: your answer`, ...io })
  if (prompts.isCancel(custom)) return undefined
  return { selected, custom }
}

/** Every question in turn, then one shared confirm step for several questions or a multi-select (SPEC T3). */
const askAll = async (prompts: InertPrompts, io: DialogIo, questions: ReadonlyArray<Question>): Promise<QuestionsOutcome> => {
  const single = questions.length === 1 && questions[0]?.multiSelect === false
  for (;;) {
    const answers: Array<QuestionAnswer> = []
    for (const [index, question] of questions.entries()) {
      const answer = await askOne(prompts, io, question, questions.length > 1 ? ` (${index + 1}/${questions.length})` : "")
      if (answer === undefined) return { _tag: "Dismissed" } as const
      answers.push(answer)
    }
    if (single) return { _tag: "Answered", answers } as const
    const summary = questions
      .map((question, index) => {
        const answer = answers[index]
        const parts = [...(answer?.selected ?? []), ...(answer?.custom === undefined ? [] : [`"${answer.custom}"`])]
        return `${question.header}: ${parts.length === 0 ? "(nothing)" : parts.join(", ")}`
      })
      .join("\n")
    const confirm = await prompts.select({
      message: `Submit these answers?\n${summary}`,
      options: [
        { value: "submit", label: "Submit" },
        { value: "again", label: "Start over" }
      ],
      ...io
    })
    if (prompts.isCancel(confirm)) return { _tag: "Dismissed" } as const
    if (confirm === "submit") return { _tag: "Answered", answers } as const
  }
}

export const makeDialogs = (host: DialogHost, palette: Palette): Dialogs => {
  let clack: InertPrompts | undefined
  // Subagents run at the same time (issue 26) and may ask together: one dialog at a time, the others wait their turn.
  const oneAtATime = Effect.unsafeMakeSemaphore(1)
  /** Runs one dialog with the keyboard handed to clack, noticing Ctrl+C on the way. */
  const dialog = <A>(body: (prompts: InertPrompts, io: DialogIo) => Promise<A>): Effect.Effect<A> =>
    oneAtATime.withPermits(1)(Effect.promise(async () => {
      clack ??= inertPrompts(await import("@clack/prompts"))
      host.takeOver()
      let ctrlC = false
      const watch = (data: Buffer | string) => {
        if (data.toString().includes("\x03")) ctrlC = true
      }
      host.input.on("data", watch)
      try {
        return await body(clack, { input: host.input, output: host.output })
      } finally {
        host.input.off("data", watch)
        host.giveBack()
        if (ctrlC) host.interruptTurn()
      }
    }))

  return {
    confirm: (question, defaultAnswer) =>
      dialog(async (prompts, io) => {
        const answer = await prompts.confirm({ message: question, initialValue: defaultAnswer, ...io })
        return prompts.isCancel(answer) ? false : answer
      }),
    approve: (request) => {
      const lines = approvalLines(request, palette, host.columns())
      return dialog(async (prompts, io) => {
        host.commit(lines)
        return chooseApproval(prompts, io, request)
      })
    },
    askQuestions: (questions) => dialog((prompts, io) => askAll(prompts, io, questions)),
    proposePlan: (plan) => dialog((prompts, io) => choosePlan(prompts, io, plan, { commit: host.commit, env: process.env }, palette)),
    pickSession: (sessions) =>
      dialog(async (prompts, io) => {
        const options = sessions.map((session) => ({
          value: session.id,
          label: session.title ?? "(untitled)",
          hint: `${when(session.updatedAt)} · ${plural(session.messageCount, "message")} · ${session.id}`
        }))
        const choice = await prompts.select({ message: "Resume which session?", options, maxItems: 10, ...io })
        return prompts.isCancel(choice) ? undefined : choice
      }),
    choose: (message, options) =>
      dialog(async (prompts, io) => {
        const choice = await prompts.select({ message, options: [...options], maxItems: 10, ...io })
        return prompts.isCancel(choice) ? undefined : choice
      }),
    pickWorkspace: (workspaces, current) =>
      dialog(async (prompts, io) => {
        const choice = await prompts.select({ message: "Which workspace?", options: workspaceOptions(workspaces, current), maxItems: 10, ...io })
        return prompts.isCancel(choice) ? undefined : choice
      })
  }
}
