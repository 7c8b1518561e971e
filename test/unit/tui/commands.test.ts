/** The session commands on a stub host: what they ask the host for and what they print. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import type { ActiveSession } from "../../../layers/session-host.ts"
import type { SessionServices } from "../../../layers/session.ts"
import type { SessionSummary } from "../../../src/session/store.ts"
import { findCommand, type CommandContext } from "../../../src/tui/commands.ts"
import { plainPalette } from "../../../src/terminal/colors.ts"

const summary = (id: string, title?: string): SessionSummary => ({
  id,
  workspace: "/ws",
  title,
  model: "local/test-model",
  createdAt: "2026-11-30T10:00:00.000Z",
  updatedAt: "2026-11-30T10:05:00.000Z",
  messageCount: 2,
  parent: undefined
})

const stub = (sessions: ReadonlyArray<SessionSummary>, picked: string | undefined) => {
  const printed: Array<string> = []
  const calls: Array<string> = []
  const active = { prepared: { document: { id: "picked" } } } as unknown as ActiveSession
  const context = {
    print: (lines: ReadonlyArray<string>) => printed.push(...lines),
    palette: plainPalette,
    sessionId: () => "current",
    switched: (_active: ActiveSession, how: string) => calls.push(`switched ${how}`),
    pickSession: (offered: ReadonlyArray<SessionSummary>) =>
      Effect.sync(() => {
        calls.push(`picker ${offered.map((session) => session.id).join(",")}`)
        return picked
      }),
    host: {
      list: Effect.succeed({ sessions, unreadable: [] }),
      resume: (id: string) => Effect.sync(() => (calls.push(`resume ${id}`), active)),
      exportTo: (file?: string) => Effect.succeed({ file: `/ws/${file ?? "crystal-session-current.json"}`, missingImages: [] }),
      changeWorkspace: (dir: string) => Effect.sync(() => (calls.push(`cd ${dir}`), active)),
      newSessionIn: (dir: string) => Effect.sync(() => (calls.push(`space ${dir}`), active)),
      workspaces: Effect.succeed(sessions.map((session) => ({ dir: session.workspace, updatedAt: session.updatedAt, sessions: 1 })))
    },
    workspace: () => "/ws",
    pickWorkspace: (offered: ReadonlyArray<{ dir: string }>, current: string) =>
      Effect.sync(() => {
        calls.push(`workspace picker ${offered.map((workspace) => workspace.dir).join(",")} (current ${current})`)
        return picked
      })
  } as unknown as CommandContext
  const run = (name: string, args: string) =>
    Effect.runPromise(findCommand(name)?.run(args, context).pipe(Effect.provide(Context.empty() as Context.Context<SessionServices>)) ?? Effect.void)
  return { printed, calls, run }
}

describe("session commands", () => {
  it("/resume without an ID offers the other sessions and resumes the one picked", async () => {
    const { calls, run } = stub([summary("current", "Now"), summary("older", "Before")], "older")
    await run("resume", "")
    expect(calls).toEqual(["picker older", "resume older", "switched resume"])
  })

  it("/resume with an ID goes straight there; a dismissed picker or no other session changes nothing", async () => {
    const direct = stub([], undefined)
    await direct.run("resume", "2026")
    expect(direct.calls).toEqual(["resume 2026", "switched resume"])
    const dismissed = stub([summary("current"), summary("older")], undefined)
    await dismissed.run("resume", "")
    expect(dismissed.calls).toEqual(["picker older"])
    const alone = stub([summary("current")], undefined)
    await alone.run("resume", "")
    expect(alone.calls).toEqual([])
    expect(alone.printed).toEqual(["no other saved session in this workspace"])
  })

  it("/cd needs a directory; /space without one picks a recent workspace, or says there is none", async () => {
    const cd = stub([], undefined)
    await cd.run("cd", "../api")
    expect(cd.calls).toEqual(["cd ../api", "switched cd"])
    await expect(cd.run("cd", "")).rejects.toThrow()
    const picked = stub([summary("a"), { ...summary("b"), workspace: "/api" }], "/api")
    await picked.run("space", "")
    expect(picked.calls).toEqual(["workspace picker /ws,/api (current /ws)", "space /api", "switched space"])
    const direct = stub([], undefined)
    await direct.run("space", "/tmp")
    expect(direct.calls).toEqual(["space /tmp", "switched space"])
    const none = stub([], undefined)
    await none.run("space", "")
    expect(none.printed).toEqual(["no saved sessions yet: name the workspace, /space DIR"])
  })

  it("/export names the file written", async () => {
    const { printed, run } = stub([], undefined)
    await run("export", "out.json")
    expect(printed).toEqual(["exported to /ws/out.json"])
  })
})
