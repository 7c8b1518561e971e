/**
 * /clear, /fork, /resume and /export inside one process (layers/session-host.ts): real sessions on
 * disk, the fake LLM server, and the requests it receives after each switch.
 */
import { existsSync } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Context from "effect/Context"
import { afterEach, describe, expect, it } from "vitest"
import { headlessOperator } from "../../../layers/headless.ts"
import { openSessionHost, type SessionHostShape } from "../../../layers/session-host.ts"
import { defaultSessionFlags } from "../../../src/cli/flags.ts"
import { prepareSession } from "../../../layers/prepare.ts"
import { jsonRenderer } from "../../../src/cli/render/json.ts"
import { Conversation } from "../../../src/engine/conversation.ts"
import { runTurn } from "../../../src/engine/turn.ts"
import { lockFile } from "../../../src/session/lock.ts"
import { makeSessionStore } from "../../../src/session/store.ts"
import { startFakeLlm, type FakeLlm } from "../../support/fake-llm/server.ts"
import { homeAndWorkspace } from "../../support/home-and-workspace.ts"
import { writeTree } from "../../support/temp.ts"

const servers: Array<FakeLlm> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

const quiet = {
  ...jsonRenderer,
  sessionStarted: () => Effect.void,
  textDelta: () => Effect.void,
  assistantMessage: () => Effect.void,
  note: () => Effect.void,
  toolStarted: () => Effect.void,
  approval: () => Effect.void,
  toolFinished: () => Effect.void
}

interface ChatBody {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content?: unknown }>
}

const setup = async () => {
  const fake = await startFakeLlm()
  servers.push(fake)
  const { home, workspace } = await homeAndWorkspace({
    model: "local/test-model",
    providers: { local: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, models: { "test-model": {} } } }
  })
  const env = { CRYSTAL_HOME: home }
  return { fake, home, workspace, env, store: makeSessionStore(path.join(home, "sessions")) }
}

const turn = (host: SessionHostShape, text: string) => runTurn(text, { maxSteps: 5 }).pipe(Effect.provide(host.current().session.services))
const documentOf = (host: SessionHostShape) => Effect.flatMap(Context.get(host.current().session.services, Conversation).document, Effect.succeed)
const messagesOf = (fake: FakeLlm, index: number) =>
  (fake.requests[index]?.body as ChatBody).messages.map((message) => [message.role, message.role === "system" ? "…" : message.content])

describe("session lifecycle in one process", () => {
  it("forks, clears, resumes with a re-composed system message, and exports", async () => {
    const { fake, home, workspace, env, store } = await setup()
    fake.script([{ text: "First." }, { text: "In the fork." }, { text: "Fresh." }, { text: "Back." }])
    const flags = { ...defaultSessionFlags, approval: "edit" as const }
    const result = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const prepared = yield* prepareSession(flags, workspace, env)
          const host = yield* openSessionHost(prepared, { flags, env, renderer: quiet, operator: headlessOperator })
          const original = prepared.document.id
          yield* turn(host, "one")
          const conversation = Context.get(host.current().session.services, Conversation)
          yield* conversation.update((doc) => ({ ...doc, todos: [{ content: "keep me", status: "pending", priority: "high" }] }))
          yield* host.current().session.controls.setMode("plan").pipe(Effect.provide(host.current().session.services))

          const forked = yield* host.fork
          const forkId = forked.prepared.document.id
          expect(forkId).not.toBe(original)
          expect(forked.prepared.document.parent).toBe(original)
          expect(existsSync(lockFile(store.dir, original))).toBe(false)
          expect(existsSync(lockFile(store.dir, forkId))).toBe(true)
          yield* turn(host, "two")

          const cleared = yield* host.clear
          const clearId = cleared.prepared.document.id
          expect(cleared.prepared.document).toMatchObject({ items: [], mode: "plan", approval: "edit", model: "local/test-model", workspace })
          expect(cleared.prepared.document.todos).toBeUndefined()
          yield* turn(host, "three")

          // The prompt files enabled now, not those of the first composition, make the resumed system message.
          yield* Effect.promise(() => fs.mkdir(path.join(home, "prompts"), { recursive: true }))
          yield* Effect.promise(() => fs.writeFile(path.join(home, "prompts", "plan.md"), "Custom plan prompt for {{session_id}}.\n"))
          const same = yield* Effect.either(host.resume(clearId))
          expect(same._tag === "Left" && same.left.message).toBe(`/resume: ${clearId} is the current session`)
          const resumed = yield* host.resume(original.slice(0, -1))
          expect(resumed.prepared.document.id).toBe(original)
          const doc = yield* documentOf(host)
          expect(doc).toMatchObject({ mode: "plan", approval: "edit", todos: [{ content: "keep me", status: "pending", priority: "high" }] })
          expect(doc.system).toBe(`Custom plan prompt for ${original}.\n`)
          yield* turn(host, "four")

          const exported = yield* host.exportTo()
          return { original, forkId, clearId, exported }
        })
      )
    )
    const { original, forkId, clearId, exported } = result
    expect(messagesOf(fake, 1)).toEqual([["system", "…"], ["user", "one"], ["assistant", "First."], ["user", "two"]])
    expect(messagesOf(fake, 2)).toEqual([["system", "…"], ["user", "three"]])
    expect(messagesOf(fake, 3)).toEqual([["system", "…"], ["user", "one"], ["assistant", "First."], ["user", "four"]])
    expect((fake.requests[3]?.body as ChatBody).messages[0]?.content).toBe(`Custom plan prompt for ${original}.\n`)

    const listing = await Effect.runPromise(store.list())
    expect(new Set(listing.sessions.map((session) => session.id))).toEqual(new Set([original, forkId, clearId]))
    expect(listing.sessions.find((session) => session.id === forkId)).toMatchObject({ parent: original, messageCount: 4 })
    expect(listing.sessions.find((session) => session.id === original)?.messageCount).toBe(4)
    // Every lock is released once the host's scope has closed.
    expect((await fs.readdir(store.dir)).filter((name) => name.endsWith(".lock"))).toEqual([])

    expect(exported).toEqual({ file: path.join(workspace, `crystal-session-${original}.json`), missingImages: [] })
    const file = JSON.parse(await fs.readFile(exported.file, "utf8"))
    expect(file.session).toEqual(JSON.parse(await fs.readFile(path.join(store.dir, `${original}.json`), "utf8")))
  })

  it("refuses to resume a session another live process has open, and stays in the current one", async () => {
    const { fake, workspace, env, store } = await setup()
    fake.script([{ text: "Hi." }, { text: "Still here." }])
    const other = await Effect.runPromise(store.save(store.create({ workspace, model: "local/test-model", mode: "work", approval: "default" })))
    await fs.writeFile(lockFile(store.dir, other.id), `${process.ppid}\n`)
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const flags = defaultSessionFlags
          const prepared = yield* prepareSession(flags, workspace, env)
          const host = yield* openSessionHost(prepared, { flags, env, renderer: quiet, operator: headlessOperator })
          yield* turn(host, "hello")
          const refused = yield* Effect.either(host.resume(other.id))
          expect(refused._tag === "Left" && refused.left.message).toBe(
            `/resume: session ${other.id} is open in another crystal process (pid ${process.ppid}); close it there first`
          )
          const missing = yield* Effect.either(host.resume("nope"))
          expect(missing._tag === "Left" && missing.left.message).toMatch(/^\/resume: no session 'nope'/)
          expect(host.current().prepared.document.id).toBe(prepared.document.id)
          yield* turn(host, "again")
        })
      )
    )
    expect(messagesOf(fake, 1)).toEqual([["system", "…"], ["user", "hello"], ["assistant", "Hi."], ["user", "again"]])
  })
})

describe("workspaces in one process", () => {
  it("/cd ends the old workspace's background processes", async () => {
    const { fake, workspace, env } = await setup()
    const second = path.join(path.dirname(workspace), "second")
    await fs.mkdir(second)
    const pidFile = path.join(workspace, "pid")
    fake.script([{ toolCalls: [{ name: "bash_start", arguments: { command: `echo $$ > ${pidFile}; exec sleep 30` } }] }, { text: "Started." }])
    const flags = { ...defaultSessionFlags, approval: "full" as const }
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const prepared = yield* prepareSession(flags, workspace, env)
          const host = yield* openSessionHost(prepared, { flags, env, renderer: quiet, operator: headlessOperator })
          yield* turn(host, "start something")
          expect(yield* host.current().session.runningTasks).toBe(1)
          const pid = Number((yield* Effect.promise(() => fs.readFile(pidFile, "utf8"))).trim())
          yield* host.changeWorkspace(second)
          expect(yield* host.current().session.runningTasks).toBe(0)
          expect(() => process.kill(pid, 0)).toThrow()
        })
      )
    )
  })

  it("/cd keeps a --prompt-attachment the new workspace lacks as a note, not a refusal", async () => {
    const { fake, workspace, env } = await setup()
    const second = path.join(path.dirname(workspace), "second")
    await fs.mkdir(second)
    await writeTree(path.join(workspace, ".crystal", "prompt-attachments", "local-style"), { "prompt.json": "{}\n", "work.md": "LOCAL STYLE\n" })
    fake.script([{ text: "Moved." }])
    const flags = { ...defaultSessionFlags, promptAttachment: ["local-style"] }
    const seen = await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const prepared = yield* prepareSession(flags, workspace, env)
          const host = yield* openSessionHost(prepared, { flags, env, renderer: quiet, operator: headlessOperator })
          const before = (yield* documentOf(host)).system
          const moved = yield* host.changeWorkspace(second)
          return { before, after: (yield* documentOf(host)).system, notes: moved.session.notes }
        })
      )
    )
    expect(seen.before).toContain("LOCAL STYLE")
    expect(seen.after).not.toContain("LOCAL STYLE")
    expect(seen.notes.some((note) => note.includes("'local-style' given with --prompt-attachment"))).toBe(true)
  })

  it("/cd goes on with the same session in another workspace; /space starts a new one there", async () => {
    const { fake, workspace, env, store } = await setup()
    const second = path.join(path.dirname(workspace), "second")
    const granted = path.join(path.dirname(workspace), "granted")
    await fs.mkdir(second)
    await fs.mkdir(granted)
    await fs.writeFile(path.join(workspace, "AGENTS.md"), "Rules of the first workspace.\n")
    await fs.writeFile(path.join(second, "AGENTS.md"), "Rules of the second workspace.\n")
    fake.script([{ text: "First." }, { text: "Second." }, { text: "Fresh." }])
    const flags = defaultSessionFlags
    await Effect.runPromise(
      Effect.scoped(
        Effect.gen(function* () {
          const prepared = yield* prepareSession(flags, workspace, env)
          const host = yield* openSessionHost(prepared, { flags, env, renderer: quiet, operator: headlessOperator })
          const id = prepared.document.id
          yield* turn(host, "one")
          yield* host.current().session.controls.addAccess(granted, "read").pipe(Effect.provide(host.current().session.services))

          const moved = yield* host.changeWorkspace("../second")
          expect(moved.prepared.document.id).toBe(id)
          expect(moved.prepared.paths.workspaceDir).toBe(path.join(second, ".crystal"))
          const onDisk = yield* store.load(id)
          expect(onDisk.workspace).toBe(second)
          expect(onDisk.access).toEqual([{ dir: granted, access: "read" }])
          expect(existsSync(lockFile(store.dir, id))).toBe(true)
          // A relative directory is taken from the workspace the session is in now, not the process's.
          yield* Effect.promise(() => fs.mkdir(path.join(second, "sub")))
          const controls = host.current().session.controls
          const sub = yield* controls.addAccess("sub", "write").pipe(Effect.provide(host.current().session.services))
          expect(sub).toBe(path.join(second, "sub"))
          yield* controls.removeAccess("sub").pipe(Effect.provide(host.current().session.services))
          yield* turn(host, "two")

          const again = yield* Effect.either(host.changeWorkspace(second))
          expect(again._tag === "Left" && again.left.message).toBe(`/cd: ${second} is already the workspace`)
          const missing = yield* Effect.either(host.changeWorkspace("nowhere"))
          expect(missing._tag === "Left" && missing.left.message).toMatch(/^\/cd: .*nowhere is not an accessible directory/)
          expect((yield* documentOf(host)).workspace).toBe(second)
          expect((yield* host.workspaces).map((recent) => recent.dir)).toEqual([second])

          const fresh = yield* host.newSessionIn(workspace)
          expect(fresh.prepared.document).toMatchObject({ workspace, items: [] })
          expect(fresh.prepared.document.id).not.toBe(id)
          expect(existsSync(lockFile(store.dir, id))).toBe(false)
          yield* turn(host, "three")
          expect((yield* host.workspaces).map((recent) => recent.dir)).toEqual([workspace, second])
        })
      )
    )
    const system = (index: number) => String((fake.requests[index]?.body as ChatBody).messages[0]?.content)
    expect(system(0)).toContain("Rules of the first workspace.")
    expect(system(1)).toContain("Rules of the second workspace.")
    expect(system(1)).toContain(second)
    expect(system(1)).not.toContain("Rules of the first workspace.")
    expect(messagesOf(fake, 1)).toEqual([["system", "…"], ["user", "one"], ["assistant", "First."], ["user", "two"]])
    expect(system(2)).toContain("Rules of the first workspace.")
    expect(messagesOf(fake, 2)).toEqual([["system", "…"], ["user", "three"]])
  })
})
