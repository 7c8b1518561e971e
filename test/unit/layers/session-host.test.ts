/**
 * The SessionHost runs one switch at a time: two asked together do not interleave (the second
 * starts from the session the first left), an export waits for a switch under way, a switch that
 * cannot start its new session goes on with the old one, and no session is left open but the
 * current one.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import { describe, expect, it } from "vitest"
import { headlessOperator } from "../../../layers/headless.ts"
import { prepareSession } from "../../../layers/prepare.ts"
import { openSessionHost, SessionHost } from "../../../layers/session-host.ts"
import { defaultSessionFlags } from "../../../src/cli/flags.ts"
import { Conversation } from "../../../src/engine/conversation.ts"
import { lockFile } from "../../../src/session/lock.ts"
import { silentRenderer } from "../../support/renderer.ts"
import { homeAndWorkspace } from "../../support/home-and-workspace.ts"

const setup = async () => {
  // Nothing is asked of the model here: the address need not answer.
  const { home, workspace } = await homeAndWorkspace({ model: "local/m", providers: { local: { protocol: "openai-chat", baseURL: "http://127.0.0.1:1/v1", models: { m: {} } } } })
  return { workspace, env: { CRYSTAL_HOME: home }, sessions: path.join(home, "sessions") }
}

const locksIn = async (dir: string) => (await fs.readdir(dir)).filter((name) => name.endsWith(".lock")).sort()

describe("SessionHost", () => {
  it("two forks asked together run one after the other: the second forks the first's copy", async () => {
    const { workspace, env, sessions } = await setup()
    const seen = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const prepared = yield* prepareSession(defaultSessionFlags, workspace, env)
          const host = yield* openSessionHost(prepared, { flags: defaultSessionFlags, env, renderer: silentRenderer(), operator: headlessOperator })
          const [one, two] = yield* Effect.all([host.fork, host.fork], { concurrency: "unbounded" })
          const locks = yield* Effect.promise(() => locksIn(sessions))
          return { original: prepared.document.id, one: one.prepared.document, two: two.prepared.document, current: host.current().prepared.document.id, locks }
        })
      )
    )
    expect(seen.one.parent).toBe(seen.original)
    expect(seen.two.parent).toBe(seen.one.id)
    expect(seen.current).toBe(seen.two.id)
    // Only the current session is open: the first fork's session was ended by the second switch.
    expect(seen.locks).toEqual([path.basename(lockFile(sessions, seen.two.id))])
    expect(await locksIn(sessions)).toEqual([])
  })

  it("a /cd and a /clear asked together: the new session is made in the workspace the /cd moved to", async () => {
    const { workspace, env, sessions } = await setup()
    const second = path.join(path.dirname(workspace), "second")
    await fs.mkdir(second)
    const seen = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const prepared = yield* prepareSession(defaultSessionFlags, workspace, env)
          const host = yield* openSessionHost(prepared, { flags: defaultSessionFlags, env, renderer: silentRenderer(), operator: headlessOperator })
          const [moved, cleared] = yield* Effect.all([host.changeWorkspace(second), host.clear], { concurrency: "unbounded" })
          return { original: prepared.document.id, moved: moved.prepared.document, cleared: cleared.prepared.document, locks: yield* Effect.promise(() => locksIn(sessions)) }
        })
      )
    )
    expect(seen.moved).toMatchObject({ id: seen.original, workspace: second })
    expect(seen.cleared.workspace).toBe(second)
    expect(seen.cleared.id).not.toBe(seen.original)
    expect(seen.locks).toEqual([path.basename(lockFile(sessions, seen.cleared.id))])
  })

  it("a switch whose new session fails to start reopens the old one, and the host goes on with it", async () => {
    const { workspace, env, sessions } = await setup()
    const seen = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const options = { flags: defaultSessionFlags, env, renderer: silentRenderer(), operator: headlessOperator }
          // Another host of this process holds session A: the lock check before a switch lets this
          // process's own locks pass, but starting A fails (SessionLocked) after B has been ended.
          const a = yield* openSessionHost(yield* prepareSession(defaultSessionFlags, workspace, env), options)
          const aId = a.current().prepared.document.id
          const aConversation = Context.get(a.current().session.services, Conversation)
          yield* Effect.zipRight(aConversation.save, aConversation.flush)
          const b = yield* openSessionHost(yield* prepareSession(defaultSessionFlags, workspace, env), options)
          const bId = b.current().prepared.document.id
          const refused = yield* Effect.flip(b.resume(aId))
          const current = b.current()
          // The reopened session is usable: a save lands, and an export (which reads the host's ref) writes it.
          const conversation = Context.get(current.session.services, Conversation)
          yield* Effect.zipRight(conversation.save, conversation.flush)
          const exported = yield* b.exportTo(path.join(workspace, "b.json"))
          const file = JSON.parse(yield* Effect.promise(() => fs.readFile(exported.file, "utf8"))) as { readonly session?: { readonly id?: string } }
          return { aId, bId, refused: refused.message, current: current.prepared.document.id, exportedId: file.session?.id, locks: yield* Effect.promise(() => locksIn(sessions)) }
        })
      )
    )
    expect(seen.refused).toMatch(new RegExp(`session ${seen.aId} is open in another crystal process`))
    expect(seen.current).toBe(seen.bId)
    expect(seen.exportedId).toBe(seen.bId)
    expect(seen.locks).toEqual([path.basename(lockFile(sessions, seen.aId)), path.basename(lockFile(sessions, seen.bId))].sort())
    expect(await locksIn(sessions)).toEqual([])
  })

  it("an export asked during a switch waits for it, and exports the session the switch went to", async () => {
    const { workspace, env } = await setup()
    const seen = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const prepared = yield* prepareSession(defaultSessionFlags, workspace, env)
          const host = yield* openSessionHost(prepared, { flags: defaultSessionFlags, env, renderer: silentRenderer(), operator: headlessOperator })
          const [forked, exported] = yield* Effect.all([host.fork, host.exportTo(path.join(workspace, "during.json"))], { concurrency: "unbounded" })
          const file = JSON.parse(yield* Effect.promise(() => fs.readFile(exported.file, "utf8"))) as { readonly session?: { readonly id?: string; readonly parent?: string } }
          return { original: prepared.document.id, forked: forked.prepared.document.id, file: file.session }
        })
      )
    )
    expect(seen.forked).not.toBe(seen.original)
    expect(seen.file).toMatchObject({ id: seen.forked, parent: seen.original })
  })

  it("is a service: its layer opens the first session; switchTo takes the switch by name", async () => {
    const { workspace, env } = await setup()
    const prepared = await Effect.runPromise(prepareSession(defaultSessionFlags, workspace, env))
    const layer = SessionHost.layer(prepared, { flags: defaultSessionFlags, env, renderer: silentRenderer(), operator: headlessOperator })
    const ids = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const host = yield* SessionHost
          const first = host.current().prepared.document.id
          // An empty session is on disk only once saved.
          const conversation = Context.get(host.current().session.services, Conversation)
          yield* Effect.zipRight(conversation.save, conversation.flush)
          const cleared = yield* host.switchTo({ _tag: "clear" })
          const back = yield* host.switchTo({ _tag: "resume", idOrPrefix: first })
          const refused = yield* Effect.flip(host.switchTo({ _tag: "resume", idOrPrefix: first }))
          return { first, cleared: cleared.prepared.document.id, back: back.prepared.document.id, refused: refused.message }
        }).pipe(Effect.provide(layer))
      )
    )
    expect(ids.cleared).not.toBe(ids.first)
    expect(ids.back).toBe(ids.first)
    expect(ids.refused).toBe(`/resume: ${ids.first} is the current session`)
  })
})
