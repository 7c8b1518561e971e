/**
 * Slash commands: one entry each (name, aliases, usage, description, what it does). They run
 * between turns on the session's engine APIs; a new command is one more entry in `slashCommands`.
 */
import * as Effect from "effect/Effect"
import type { ActiveSession, SessionHostShape, SwitchKind } from "../../layers/session-host.ts"
import type { SessionServices } from "../../layers/session.ts"
import type { Access } from "../approval/path-fence.ts"
import { approvalModeMeanings, approvalModes, type ApprovalMode } from "../approval/policy.ts"
import { Conversation } from "../engine/conversation.ts"
import { Providers } from "../providers/providers.ts"
import type { SessionControls } from "../engine/session-controls.ts"
import { describePlugin } from "../plugins/describe.ts"
import { PluginLoader } from "../plugins/plugin-loader.ts"
import { PlanFile } from "../plans/plan-file.ts"
import type { AttachmentAction } from "../prompts/attachments.ts"
import { emptyCommandList, type FileCommandList } from "../prompts/command-files.ts"
import type { UserInput } from "../engine/turn.ts"
import type { SessionSummary } from "../session/store.ts"
import type { RecentWorkspace } from "../session/workspaces.ts"
import { MarkdownStream } from "./markdown.ts"
import { toolsCommand } from "./tools-command.ts"
import { mcpCommand } from "./mcp-view.ts"
import { usageCommand } from "./usage-command.ts"
import { rewindCommand } from "./rewind-command.ts"
import { fileSlashCommand } from "./file-commands.ts"
import { initCommand } from "./init-command.ts"
import { agentsCommand } from "./agents-command.ts"
import type { McpServersShape } from "../mcp/mcp-servers.ts"
import type { Palette } from "../terminal/colors.ts"

export interface CommandContext {
  readonly controls: SessionControls
  readonly print: (lines: ReadonlyArray<string>) => void
  readonly palette: Palette
  /** Leaves the app (once what runs has stopped). */
  readonly exit: Effect.Effect<void>
  readonly disabledTools: ReadonlyArray<string>
  /** /clear, /resume, /fork, /export, /cd, /space. */
  readonly host: Pick<SessionHostShape, "clear" | "resume" | "fork" | "exportTo" | "list" | "changeWorkspace" | "newSessionIn" | "workspaces">
  /** The host switched to another session (or workspace): show it and run the next turns on it. */
  readonly switched: (active: ActiveSession, how: SwitchKind) => void
  readonly pickSession: (sessions: ReadonlyArray<SessionSummary>) => Effect.Effect<string | undefined>
  readonly pickWorkspace: (workspaces: ReadonlyArray<RecentWorkspace>, current: string) => Effect.Effect<string | undefined>
  readonly sessionId: () => string
  readonly workspace: () => string
  /** The session's MCP servers (/mcp); undefined when config.json names none. */
  readonly mcp: () => McpServersShape | undefined
  /** The workspace's and home's slash commands from files (/help lists them). */
  readonly fileCommands: () => FileCommandList
  /** A select dialog: the chosen option's value, or undefined when dismissed (/rewind). */
  readonly choose?: ((message: string, options: ReadonlyArray<{ readonly value: string; readonly label: string; readonly hint?: string }>) => Effect.Effect<string | undefined>) | undefined
  /** Runs a prompt's turn on the current session, as typing it would (a file command, /init). */
  readonly turn: (input: UserInput) => Effect.Effect<void>
}

/** Which switch the host made (its Switch union's tags). */

export type CommandEffect = Effect.Effect<void, { readonly message: string }, SessionServices>

export interface SlashCommand {
  readonly name: string
  readonly aliases?: ReadonlyArray<string>
  readonly usage?: string
  readonly description: string
  /** Runs like a turn (spinner, prompts queued meanwhile, Ctrl+C cancels), with this activity line. */
  readonly asTurn?: string
  /** Its work is a prompt's turn (a file command, /init), which says itself when it is cancelled. */
  readonly promptTurn?: boolean
  readonly run: (args: string, context: CommandContext) => CommandEffect
}

const say = (context: CommandContext, ...lines: ReadonlyArray<string>): CommandEffect => Effect.sync(() => context.print(lines))

const setMode = (mode: "plan" | "work") => (_args: string, context: CommandContext): CommandEffect =>
  context.controls.setMode(mode).pipe(Effect.zipRight(say(context, `${mode} mode`)))

/** The session's plan file: its path, then the plan as written (docs/plans.md). */
const showPlan = (context: CommandContext): CommandEffect =>
  Effect.flatMap(PlanFile, (plan) =>
    Effect.flatMap(plan.read, (read) => {
      switch (read._tag) {
        case "Missing":
          return say(context, context.palette.dim(`no plan yet (${plan.path})`))
        case "Refused":
          return say(context, `the plan was not read: ${read.reason}`)
        case "Read":
          return say(context, context.palette.dim(`plan: ${plan.path}`), ...read.text.replace(/\n$/, "").split("\n"))
      }
    })
  )

interface HelpEntry {
  readonly name: string
  readonly usage?: string | undefined
  readonly description: string
  readonly aliases?: ReadonlyArray<string> | undefined
}

const helpLine = (context: CommandContext, command: HelpEntry, after = ""): string => {
  const name = `/${command.name}${command.usage === undefined ? "" : ` ${command.usage}`}`
  const aliases = command.aliases === undefined ? "" : context.palette.dim(` (also /${command.aliases.join(", /")})`)
  return `  ${context.palette.cyan(name.padEnd(34))} ${command.description}${aliases}${after}`
}

/** The commands from files, with where each comes from, and the notes of files that were refused. */
const fileCommandHelp = (context: CommandContext): Array<string> => {
  const { commands, notes } = context.fileCommands()
  if (commands.length === 0 && notes.length === 0) return []
  return [
    "",
    ...commands.map((command) => helpLine(context, command, context.palette.dim(` (${command.source})`))),
    ...notes.map((note) => context.palette.yellow(`  ${note}`))
  ]
}

const helpCommand: SlashCommand = {
  name: "help",
  description: "commands and keys",
  run: (_args, context) =>
    say(
      context,
      ...slashCommands.map((command) => helpLine(context, command)),
      ...fileCommandHelp(context),
      "",
      context.palette.dim("  Enter sends · Shift+Enter, Alt+Enter, Ctrl+J or a trailing \\ adds a line · Up/Down: history"),
      context.palette.dim("  Tab completes /commands and @files · Esc clears · Ctrl+C cancels a turn, twice on an empty prompt leaves · Ctrl+D leaves"),
      context.palette.dim("  Ctrl+V (or Alt+V) pastes the clipboard's image as [Image #N] · dropping an image file attaches it")
    )
}

export const slashCommands: ReadonlyArray<SlashCommand> = [
  helpCommand,
  {
    name: "mode",
    usage: "[plan|work]",
    description: "show or switch the mode (plan: read-only tools)",
    run: (args, context) =>
      args === "plan" || args === "work"
        ? setMode(args)(args, context)
        : args === ""
          ? Effect.flatMap(Conversation, (conversation) => conversation.document).pipe(Effect.flatMap((doc) => say(context, `${doc.mode} mode`)))
          : Effect.fail({ message: "usage: /mode [plan|work]" })
  },
  {
    name: "plan",
    description: "switch to plan mode (read-only but for the plan file) and show the session's plan",
    run: (args, context) => setMode("plan")(args, context).pipe(Effect.zipRight(showPlan(context)))
  },
  { name: "work", description: "switch to work mode (every tool)", run: setMode("work") },
  {
    name: "model",
    usage: "[PROVIDER/MODEL]",
    description: "show or switch the model; the conversation goes on",
    run: (args, context) =>
      args === ""
        ? Effect.flatMap(Providers, (providers) => {
            const entry = providers.current().entry
            return say(context, `${entry.ref} · context window ${entry.capabilities.contextWindow} tokens`)
          })
        : context.controls.switchModel(args).pipe(
              Effect.flatMap((entry) => say(context, `model ${entry.ref}`))
          )
  },
  {
    name: "approval",
    usage: `[${approvalModes.join("|")}]`,
    description: "show or switch the approval mode",
    run: (args, context) => {
      if ((approvalModes as ReadonlyArray<string>).includes(args)) {
        return context.controls.setApproval(args as ApprovalMode).pipe(
          Effect.zipRight(say(context, `approval ${args}: ${approvalModeMeanings[args as ApprovalMode]}`))
        )
      }
      if (args !== "") return Effect.fail({ message: `/approval: one of ${approvalModes.join(", ")}` })
      return Effect.flatMap(Conversation, (conversation) => conversation.document).pipe(
        Effect.flatMap((doc) =>
          say(
            context,
            ...approvalModes.map((mode) => `${mode === doc.approval ? "●" : " "} ${mode.padEnd(8)} ${context.palette.dim(approvalModeMeanings[mode])}`)
          )
        )
      )
    }
  },
  {
    name: "access",
    usage: "[add DIR [read|write] | remove DIR]",
    description: "directories granted besides the workspace",
    run: (args, context) => {
      const [verb, dir, access] = args.split(/\s+/).filter((part) => part !== "")
      if (verb === undefined) {
        return context.controls.listAccess.pipe(
          Effect.flatMap((grants) =>
            say(context, ...(grants.length === 0 ? ["no directories granted besides the workspace"] : grants.map((grant) => `${grant.access.padEnd(5)} ${grant.dir}`)))
          )
        )
      }
      if (verb === "add" && dir !== undefined && (access === undefined || access === "read" || access === "write")) {
        const level: Access = access ?? "read"
        return context.controls.addAccess(dir, level).pipe(Effect.flatMap((real) => say(context, `granted ${level} access to ${real}`)))
      }
      if (verb === "remove" && dir !== undefined) return context.controls.removeAccess(dir).pipe(Effect.zipRight(say(context, `removed ${dir}`)))
      return Effect.fail({ message: "usage: /access [add DIR [read|write] | remove DIR]" })
    }
  },
  {
    name: "tools",
    usage: "[on|off|reload | enable|disable|show DIR | home|project author|host]",
    description: "the tools offered in this mode, with source and approval; tool sets (see docs/tools.md)",
    run: (args, context) => toolsCommand(args, context)
  },
  {
    name: "plugins",
    description: "the plugins loaded: their hooks, raw hooks, placeholders and every note they caused",
    run: (_args, context) =>
      Effect.map(PluginLoader, (loader) => {
        if (loader.plugins.length === 0 && loader.loadNotes.length === 0) return context.print(["no plugins are loaded (see docs/plugins.md: ~/.crystal/plugins/NAME/plugin.json)"])
        const hookNotes = loader.hooks.notes()
        context.print([
          ...loader.plugins.flatMap((plugin) => [
            ...describePlugin(plugin),
            ...hookNotes.filter((note) => note.plugins.includes(plugin.name)).map((note) => context.palette.yellow(`  Note: ${note.text}`))
          ]),
          ...loader.loadNotes.filter((note) => !loader.plugins.some((plugin) => plugin.notes?.includes(note))).map((note) => context.palette.yellow(`Skipped: ${note}`))
        ])
      })
  },
  {
    name: "promptset",
    aliases: ["prompts"],
    usage: "[NAME]",
    description: "prompt sets and where Work, Plan and Review come from; NAME switches",
    run: (args, context) =>
      args !== ""
        ? context.controls.switchPromptSet(args).pipe(
              Effect.flatMap((change) => say(context, change.message))
          )
        : context.controls.listPromptSets.pipe(
            Effect.flatMap((listing) =>
              say(
                context,
                ...listing.rows.map((row) => {
                  const source = (name: "work" | "plan" | "review") => `${name} ${row.sources[name] === undefined ? "built-in" : "set"}`
                  return `${row.selected ? "●" : " "} ${row.id.padEnd(16)} ${row.title}  ${context.palette.dim(`${source("work")} · ${source("plan")} · ${source("review")}`)}`
                }),
                ...(listing.forced ? [context.palette.dim("--prompt-set is in force: switching is refused in this session")] : []),
                ...listing.notes.map((note) => context.palette.yellow(note))
              )
            )
          )
  },
  {
    name: "promptattach",
    usage: "[enable|disable|up|down NAME]",
    description: "prompt attachments, in the order they attach",
    run: (args, context) => {
      const [verb, name] = args.split(/\s+/).filter((part) => part !== "")
      if (verb === undefined) {
        return context.controls.listPromptAttachments.pipe(
          Effect.flatMap((listing) =>
            say(
              context,
              ...(listing.rows.length === 0 ? ["no prompt attachments"] : []),
              ...listing.rows.map(
                (row) =>
                  `${row.position !== undefined ? "●" : " "} ${row.id.padEnd(16)} ${row.title}  ${context.palette.dim(`${row.source}${row.enabled ? " · enabled" : ""}${row.forced ? " · --prompt-attachment" : ""}`)}`
              ),
              ...(listing.off ? [context.palette.dim("--prompt-attachments off: nothing attaches")] : []),
              ...listing.notes.map((note) => context.palette.yellow(note))
            )
          )
        )
      }
      if (!["enable", "disable", "up", "down"].includes(verb) || name === undefined) {
        return Effect.fail({ message: "usage: /promptattach [enable|disable|up|down NAME]" })
      }
      return context.controls.changePromptAttachment(verb as AttachmentAction, name).pipe(
        Effect.flatMap((change) => say(context, change.message))
      )
    }
  },
  mcpCommand,
  agentsCommand,
  {
    name: "todos",
    description: "the session's todo list",
    run: (_args, context) =>
      Effect.flatMap(Conversation, (conversation) => conversation.document).pipe(
        Effect.flatMap((doc) => {
          const todos = doc.todos ?? []
          const mark = { pending: "☐", in_progress: "◐", completed: "☑" } as const
          return say(context, ...(todos.length === 0 ? ["no todos"] : todos.map((todo) => `${mark[todo.status]} ${todo.content} ${context.palette.dim(`(${todo.priority})`)}`)))
        })
      )
  },
  {
    name: "clear",
    description: "start a new session (same workspace, model, mode, approval)",
    run: (_args, context) => context.host.clear.pipe(Effect.tap((active) => Effect.sync(() => context.switched(active, "clear"))))
  },
  {
    name: "resume",
    usage: "[ID]",
    description: "continue a saved session of this workspace (ID or unique prefix; none: pick)",
    run: (args, context) =>
      Effect.gen(function* () {
        let id: string | undefined = args
        if (id === "") {
          const others = (yield* context.host.list).sessions.filter((session) => session.id !== context.sessionId())
          if (others.length === 0) return context.print(["no other saved session in this workspace"])
          id = yield* context.pickSession(others)
          if (id === undefined) return
        }
        const active = yield* context.host.resume(id)
        context.switched(active, "resume")
      })
  },
  {
    name: "fork",
    description: "copy this session under a new id and go on in the copy",
    run: (_args, context) => context.host.fork.pipe(Effect.tap((active) => Effect.sync(() => context.switched(active, "fork"))))
  },
  {
    name: "cd",
    usage: "DIR",
    description: "go on with this conversation in another workspace (same session)",
    run: (args, context) =>
      args === ""
        ? Effect.fail({ message: "usage: /cd DIR" })
        : context.host.changeWorkspace(args).pipe(Effect.tap((active) => Effect.sync(() => context.switched(active, "cd"))))
  },
  {
    name: "space",
    usage: "[DIR]",
    description: "start a new session in another workspace (none: pick a recent one)",
    run: (args, context) =>
      Effect.gen(function* () {
        let dir: string | undefined = args
        if (dir === "") {
          const recent = yield* context.host.workspaces
          if (recent.length === 0) return context.print(["no saved sessions yet: name the workspace, /space DIR"])
          dir = yield* context.pickWorkspace(recent, context.workspace())
          if (dir === undefined) return
        }
        const active = yield* context.host.newSessionIn(dir)
        context.switched(active, "space")
      })
  },
  {
    name: "export",
    usage: "[FILE]",
    description: "write the session as one JSON file (default ./crystal-session-ID.json)",
    run: (args, context) =>
      context.host.exportTo(args === "" ? undefined : args).pipe(
        Effect.flatMap((result) =>
          say(
            context,
            `exported to ${result.file}`,
            ...(result.missingImages.length === 0 ? [] : [context.palette.yellow(`${result.missingImages.length} image(s) missing from the media store were left out`)])
          )
        )
      )
  },
  {
    name: "compact",
    usage: "[INSTRUCTIONS]",
    description: "summarise the earlier conversation to free context (the history stays on disk)",
    asTurn: "compacting…",
    run: (args, context) =>
      // Compacted and Failed are told by the renderer's note; a refusal is said here.
      context.controls.compact(args === "" ? undefined : args).pipe(
        Effect.flatMap((outcome) => (outcome._tag === "Refused" ? say(context, `/compact: ${outcome.reason}`) : Effect.void))
      )
  },
  {
    name: "side",
    usage: "QUESTION",
    description: "a quick question on the conversation so far; not kept in it",
    asTurn: "answering the side question…",
    run: (args, context) =>
      context.controls.side(args).pipe(
        Effect.flatMap((answer) => {
          const markdown = new MarkdownStream(context.palette)
          return say(
            context,
            context.palette.cyan(`side answer ${context.palette.dim(`· ${answer.model} · not kept in the conversation`)}`),
            ...markdown.push(`${answer.text}\n`),
            ...markdown.end(),
            context.palette.dim("── end of side answer ──")
          )
        })
      )
  },
  initCommand,
  { name: "usage", description: "tokens and cost of the session and of the last turn", run: usageCommand },
  { name: "rewind", usage: "[TURN]", description: "undo turns: files and conversation back to just before a turn (again to redo)", run: rewindCommand },
  { name: "exit", aliases: ["quit"], description: "leave (the session is saved)", run: (_args, context) => context.exit }
]

/** Every name a built-in command answers to: a command file may not take one. */
export const builtinCommandNames = (): ReadonlyArray<string> => slashCommands.flatMap((command) => [command.name, ...(command.aliases ?? [])])

/** A built-in command by name or alias, else a command from a file (a refused file's name says why it did not run). */
export const findCommand = (name: string, files: FileCommandList = emptyCommandList): SlashCommand | undefined => {
  const builtin = slashCommands.find((command) => command.name === name || (command.aliases ?? []).includes(name))
  if (builtin !== undefined) return builtin
  const fromFile = files.commands.find((command) => command.name === name)
  if (fromFile !== undefined) return fileSlashCommand(fromFile)
  const refused = files.refused.get(name)
  return refused === undefined ? undefined : { name, description: "refused", run: () => Effect.fail({ message: refused }) }
}

export { parseCommandLine } from "../prompts/command-files.ts"

/** Completion entries: names and aliases, with descriptions, then the commands from files. */
export const commandEntries = (files: FileCommandList = emptyCommandList): ReadonlyArray<{ readonly name: string; readonly description: string }> => [
  ...slashCommands.flatMap((command) => [
    { name: command.name, description: command.description },
    ...(command.aliases ?? []).map((alias) => ({ name: alias, description: `${command.description} (= /${command.name})` }))
  ]),
  ...files.commands.map((command) => ({ name: command.name, description: command.description }))
]
