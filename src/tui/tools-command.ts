/**
 * /tools (SPEC X5): the catalog of the current mode with each tool's source and approval (a `*`
 * marks tools whose set supplies a classifier), and the session's switches for tool sets:
 * on|off|reload, enable|disable|show DIR, and home|project author|host (whose approval word counts).
 */
import * as Effect from "effect/Effect"
import { Conversation } from "../engine/conversation.ts"
import { Toolbox } from "../engine/toolbox.ts"
import type { ExternalToolsControl } from "../external-tools/session-tools.ts"
import type { CommandContext, CommandEffect } from "./commands.ts"

const usage = "usage: /tools [on|off|reload | enable|disable|show DIR | home|project author|host]"

const say = (context: CommandContext, lines: ReadonlyArray<string>): CommandEffect => Effect.sync(() => context.print(lines))

const catalog = (context: CommandContext): CommandEffect =>
  Effect.gen(function* () {
    const toolbox = yield* Toolbox
    const doc = yield* Effect.flatMap(Conversation, (conversation) => conversation.document)
    const rows = new Map((toolbox.external?.rows() ?? []).map((row) => [row.name, row]))
    const { cyan, dim } = context.palette
    const lines = toolbox.catalog(doc.mode).map((tool) => {
      const row = rows.get(tool.name)
      const source = row === undefined ? "built-in" : `${row.source}:${row.set}`
      const approval = row === undefined ? "policy" : `${row.approval}${row.classifier ? "*" : ""}`
      return `  ${cyan(tool.name.padEnd(14))} ${source.padEnd(18)} ${approval.padEnd(8)} ${dim((tool.description.split(/(?<=\.)\s/)[0] ?? "").slice(0, 70))}`
    })
    const external = toolbox.external
    yield* say(context, [
      `${doc.mode} mode offers:`,
      `  ${"TOOL".padEnd(14)} ${"SOURCE".padEnd(18)} ${"APPROVAL".padEnd(8)} DESCRIPTION`,
      ...lines,
      ...(rows.size > 0 && [...rows.values()].some((row) => row.classifier) ? [dim("  * the tool set classifies its own calls (it can only raise risk)")] : []),
      ...(external === undefined
        ? []
        : [
            dim(
              `  tool sets: ${external.discovering() ? "on" : "off"} · approval word: home ${external.authority("home")}, project ${external.authority("project")}`
            )
          ]),
      ...(context.disabledTools.length === 0 ? [] : [dim(`disabled by --disable-tool: ${context.disabledTools.join(", ")}`)])
    ])
  })

const showSet = (external: ExternalToolsControl, name: string, context: CommandContext): CommandEffect => {
  const entries = external.entries().filter((entry) => entry.name === name)
  if (entries.length === 0) return Effect.fail({ message: `/tools show: no tool set '${name}' (found: ${[...new Set(external.entries().map((entry) => entry.name))].join(", ") || "none"})` })
  const lines = entries.flatMap((entry) => {
    const manifest = entry.manifest
    const tools = external.rows().filter((row) => row.set === name && row.source === entry.source)
    return [
      `${entry.source} tool set ${entry.name}: ${entry.state}${manifest === undefined ? "" : `, ${manifest.runner} runner, catalogs ${manifest.catalogs.join(", ")}`}`,
      `  ${entry.manifestFile}`,
      ...(entry.problem === undefined ? [] : [`  ${entry.problem}`]),
      ...(manifest?.runner === "exec" ? manifest.tools.map((tool) => `  ${tool.name}: ${tool.command.join(" ")} (approval ${tool.approval}, timeout ${tool.timeoutSeconds} s)`) : []),
      ...(manifest?.runner === "module" ? [`  entry ${manifest.entry} (approval ${manifest.approval}, timeout ${manifest.timeoutSeconds} s)`] : []),
      ...(tools.length > 0 ? [`  offered: ${tools.map((row) => row.name).join(", ")}`] : entry.state === "enabled" ? ["  offered: nothing (see the notes of the last load)"] : [])
    ]
  })
  return say(context, lines)
}

export const toolsCommand = (args: string, context: CommandContext): CommandEffect =>
  Effect.gen(function* () {
    const words = args.trim().split(/\s+/).filter((word) => word !== "")
    if (words.length === 0) return yield* catalog(context)
    const external = (yield* Toolbox).external
    if (external === undefined) return yield* Effect.fail({ message: "/tools: this session has no tool sets" })
    const [verb, target, extra] = words
    const report = (lines: ReadonlyArray<string>) => say(context, lines.length === 0 ? ["tools reloaded"] : lines)
    if (extra !== undefined) return yield* Effect.fail({ message: usage })
    if ((verb === "on" || verb === "off") && target === undefined) {
      const notes = yield* external.setDiscovery(verb === "on")
      return yield* say(context, [`tool sets ${verb} for this session (${external.tools().length} external tools)`, ...notes])
    }
    if (verb === "reload" && target === undefined) {
      const notes = yield* external.reload
      return yield* say(context, [`tool sets reloaded (${external.tools().length} external tools)`, ...notes])
    }
    if ((verb === "enable" || verb === "disable") && target !== undefined) return yield* Effect.flatMap(external.setEnabled(target, verb === "enable"), report)
    if (verb === "show" && target !== undefined) return yield* showSet(external, target, context)
    if ((verb === "home" || verb === "project") && (target === "author" || target === "host")) {
      external.setAuthority(verb, target)
      return yield* say(context, [
        target === "author"
          ? `${verb} tool sets: their "approval": "always" asks before every call (this session)`
          : `${verb} tool sets: the host's approval policy alone decides (this session)`
      ])
    }
    return yield* Effect.fail({ message: usage })
  })
