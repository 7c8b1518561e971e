/** Commands from files in the app: found by name after the built-ins, offered in the menu, listed by /help, run as a turn. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import type { SessionServices } from "../../../layers/session.ts"
import type { FileCommand, FileCommandList } from "../../../src/prompts/command-files.ts"
import { plainPalette } from "../../../src/terminal/colors.ts"
import { reduce } from "../../../src/tui/app/reduce.ts"
import { builtinCommandNames, findCommand, type CommandContext } from "../../../src/tui/commands.ts"
import { editorWith } from "../../../src/tui/editor-state.ts"
import { appState } from "./app-fixture.ts"

const command = (name: string, fields: Partial<FileCommand> = {}): FileCommand => ({
  name,
  description: `${name} description`,
  usage: undefined,
  mode: undefined,
  model: undefined,
  body: "Do it.",
  file: `/ws/.crystal/commands/${name}.md`,
  source: "workspace",
  ...fields
})

const list: FileCommandList = {
  commands: [command("git:commit", { usage: "MESSAGE", source: "home" }), command("review", { usage: "ARGUMENTS" })],
  refused: new Map([["delegate", '/ws/.crystal/commands/delegate.md: "agent" names a subagent, and a command cannot run as one (it runs in the session itself); /delegate skipped.']]),
  notes: ['/ws/.crystal/commands/delegate.md: "agent" names a subagent, and a command cannot run as one (it runs in the session itself); /delegate skipped.']
}

const run = (name: string, args: string, context: CommandContext) =>
  Effect.runPromise(Effect.either(findCommand(name, list)!.run(args, context).pipe(Effect.provide(Context.empty() as Context.Context<SessionServices>))))

describe("commands from files in the app", () => {
  it("runs /NAME args as a turn with its own activity line", () => {
    const step = reduce(appState({ commands: list }), { _tag: "Sent", text: "/git:commit fix the build", images: [], at: 5 })
    expect(step.state).toMatchObject({ turnSince: 5, activity: "/git:commit…", commandRunning: false })
    const started = step.effects.find((effect) => effect._tag === "StartCommandTurn")
    expect(started).toMatchObject({ _tag: "StartCommandTurn", command: { name: "git:commit", usage: "MESSAGE" }, args: "fix the build" })
  })

  it("offers them in the / menu with their descriptions, after the built-ins", () => {
    const step = reduce(appState({ commands: list }), { _tag: "Edited", editor: editorWith("/") })
    const values = step.state.completion?.items.map((item) => item.value) ?? []
    expect(values.slice(-2)).toEqual(["/git:commit", "/review"])
    expect(values).toContain("/init")
    const typed = reduce(appState({ commands: list }), { _tag: "Edited", editor: editorWith("/gi") })
    expect(typed.state.completion?.items).toEqual([{ value: "/git:commit", description: "git:commit description" }])
  })

  it("a built-in keeps its name; an unknown name stays unknown", () => {
    expect(findCommand("help", { ...list, commands: [command("help")] })?.description).toBe("commands and keys")
    expect(builtinCommandNames()).toEqual(expect.arrayContaining(["help", "init", "quit", "prompts", "exit"]))
    const step = reduce(appState({ commands: list }), { _tag: "Sent", text: "/nothing", images: [], at: 5 })
    expect(step.effects).toContainEqual({ _tag: "UnknownCommand", name: "nothing" })
  })

  it("a refused file's name says why it did not run, and starts nothing", async () => {
    const turns: Array<string> = []
    const context = { turn: (input: { text: string }) => Effect.sync(() => turns.push(input.text)) } as unknown as CommandContext
    expect(await run("delegate", "now", context)).toMatchObject({ _tag: "Left", left: { message: expect.stringMatching(/cannot run as one \(it runs in the session itself\); \/delegate skipped/) } })
    expect(turns).toEqual([])
  })

  it("/help lists them with their source, and the notes of the refused ones", async () => {
    const printed: Array<string> = []
    const context = { print: (lines: ReadonlyArray<string>) => printed.push(...lines), palette: plainPalette, fileCommands: () => list } as unknown as CommandContext
    await Effect.runPromise(findCommand("help", list)!.run("", context).pipe(Effect.provide(Context.empty() as Context.Context<SessionServices>)))
    expect(printed).toContainEqual(expect.stringMatching(/^ {2}\/init \[NOTES\] +explore the workspace, then write AGENTS\.md or propose an edit$/))
    expect(printed).toContainEqual(expect.stringMatching(/^ {2}\/git:commit MESSAGE +git:commit description \(home\)$/))
    expect(printed).toContainEqual(expect.stringMatching(/^ {2}\/review ARGUMENTS +review description \(workspace\)$/))
    expect(printed).toContainEqual(expect.stringMatching(/^ {2}\/ws\/\.crystal\/commands\/delegate\.md: "agent" names a subagent/))
  })
})
