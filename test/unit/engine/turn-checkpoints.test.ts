/** The turn integration over the real store, on real files: when snapshots are taken, and what a turn is said to have changed. */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Scope from "effect/Scope"
import * as Exit from "effect/Exit"
import { describe, expect, it } from "vitest"
import { openCheckpointStore } from "../../../src/checkpoints/open.ts"
import { defaultCheckpointSettings } from "../../../src/checkpoints/store.ts"
import { Conversation } from "../../../src/engine/conversation.ts"
import { makeTurnCheckpoints } from "../../../src/engine/turn-checkpoints.ts"
import { makeSessionStore, SessionStore } from "../../../src/session/store.ts"
import { fixture } from "../checkpoints/support.ts"

const setup = async (background: { running: boolean }, settings = defaultCheckpointSettings) => {
  const { workspace, home } = await fixture()
  fs.writeFileSync(path.join(workspace, "a.txt"), "a\n")
  const sessions = makeSessionStore(path.join(home, "sessions"))
  const scope = Effect.runSync(Scope.make())
  const conversation = await Effect.runPromise(
    Conversation.make(sessions.create({ workspace, model: "local/m", mode: "work", approval: "full" })).pipe(Effect.provideService(SessionStore, sessions), Scope.extend(scope))
  )
  let opened = 0
  const notes: Array<string> = []
  const checkpoints = await Effect.runPromise(
    makeTurnCheckpoints({
      sessionId: "s",
      conversation,
      open: Effect.suspend(() => {
        opened++
        return openCheckpointStore(workspace, home, settings)
      }),
      note: (text) => Effect.sync(() => notes.push(text)),
      backgroundRunning: Effect.sync(() => background.running)
    })
  )
  const turn = async (id: string, change: (() => void) | undefined) => {
    await Effect.runPromise(checkpoints.turnStarted({ id, text: `${id}\nmore` }))
    if (change !== undefined) {
      await Effect.runPromise(checkpoints.beforeChange)
      change()
      await Effect.runPromise(checkpoints.beforeChange)
    }
    return Effect.runPromise(checkpoints.turnEnded)
  }
  const records = async () => (await Effect.runPromise(conversation.document)).checkpoints ?? []
  const close = () => Effect.runPromise(Scope.close(scope, Exit.void))
  return { workspace, home, turn, records, opened: () => opened, notes, close }
}

describe("turn checkpoints", () => {
  it("takes no snapshot for a turn that changes nothing, one pair for a turn that does, and records both turns", async () => {
    const t = await setup({ running: false })
    expect(await t.turn("m1", undefined)).toBeUndefined()
    expect(t.opened()).toBe(0)
    const ended = await t.turn("m2", () => fs.writeFileSync(path.join(t.workspace, "a.txt"), "a\nb\n"))
    expect(ended?.files.map((file) => [file.path, file.kind, file.added, file.removed])).toEqual([["a.txt", "modified", 1, 0]])
    expect(t.opened()).toBe(1)
    const records = await t.records()
    expect(records.map((record) => [record.turn, record.messageId, record.prompt, record.before !== undefined, record.files?.length])).toEqual([
      [1, "m1", "m1", false, undefined],
      [2, "m2", "m2", true, 1]
    ])
    await t.close()
  })

  it("attributes what a background task changed between turns to the next turn that takes a snapshot", async () => {
    const background = { running: false }
    const t = await setup(background)
    await t.turn("m1", () => fs.writeFileSync(path.join(t.workspace, "a.txt"), "changed\n"))
    background.running = true
    // The task writes after the turn ended.
    fs.writeFileSync(path.join(t.workspace, "from-task.txt"), "task\n")
    const ended = await t.turn("m2", () => fs.writeFileSync(path.join(t.workspace, "b.txt"), "b\n"))
    expect(ended?.files.map((file) => file.path)).toEqual(["b.txt", "from-task.txt"])
    const [first, second] = await t.records()
    expect(second?.before).toBe(first?.after)
    await t.close()
  })

  it("leaves between-turn changes out when no background task ran (the operator's, asked about at rewind)", async () => {
    const t = await setup({ running: false })
    await t.turn("m1", () => fs.writeFileSync(path.join(t.workspace, "a.txt"), "changed\n"))
    fs.writeFileSync(path.join(t.workspace, "operator.txt"), "mine\n")
    const ended = await t.turn("m2", () => fs.writeFileSync(path.join(t.workspace, "b.txt"), "b\n"))
    expect(ended?.files.map((file) => file.path)).toEqual(["b.txt"])
    await t.close()
  })

  it("keeps the store within checkpoints.maxBytes during a long session without anyone calling prune", async () => {
    const maxBytes = 200_000
    const t = await setup({ running: false }, { ...defaultCheckpointSettings, maxBytes })
    const storeBytes = (dir: string): number =>
      fs.readdirSync(dir, { withFileTypes: true }).reduce((sum, entry) => {
        const full = path.join(dir, entry.name)
        return sum + (entry.isDirectory() ? storeBytes(full) : fs.lstatSync(full).size)
      }, 0)
    let largest = 0
    for (let n = 0; n < 60; n++) {
      // Random bytes do not compress: each turn adds ~20 KB of content nothing else refers to.
      await t.turn(`m${n}`, () => fs.writeFileSync(path.join(t.workspace, `f${n % 3}.bin`), crypto.getRandomValues(new Uint8Array(20_000))))
      largest = Math.max(largest, storeBytes(path.join(t.home, "checkpoints")))
    }
    // 60 turns × 20 KB = 1.2 MB written; a prune runs whenever a twentieth of maxBytes was added.
    expect(largest).toBeLessThan(maxBytes + maxBytes / 20 + 50_000)
    await t.close()
  })
})
