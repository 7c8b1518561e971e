import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import { conversationBefore, conversationChange, fileTargets, markRewound, rewindTarget, snapshotted } from "../../../src/engine/rewind-plan.ts"
import type { CheckpointRecord } from "../../../src/session/checkpoint-records.ts"
import type { TranscriptItem } from "../../../src/session/items.ts"

const user = (id: string): TranscriptItem => ({ _tag: "user", id, text: id })
const answer = (id: string): TranscriptItem => ({ _tag: "assistant", id, text: id, model: "m/m" })
const turn = (n: number, messageId: string, extra: Partial<CheckpointRecord> = {}): CheckpointRecord => ({ turn: n, kind: "turn", messageId, prompt: messageId, at: "2026-01-01T00:00:00Z", ...extra })
const file = (path: string) => ({ path, kind: "modified" as const, added: 1, removed: 1, binary: false })

describe("rewind planning", () => {
  const items = [user("u1"), answer("a1"), user("u2"), answer("a2"), user("u3"), answer("a3")]
  const records = [turn(1, "u1"), turn(2, "u2"), turn(3, "u3")]

  it("names the record, or says in one line why there is none", () => {
    expect(Either.getOrThrow(rewindTarget(records, 2, "s")).turn).toBe(2)
    expect(Either.getLeft(rewindTarget(records, 7, "s"))).toEqual(Either.getLeft(Either.left("--to 7: session s has no turn 7 (its turns are 1–3; crystal checkpoints list --session s)")))
    expect(Either.isLeft(rewindTarget([], 1, "s"))).toBe(true)
  })

  it("gives the conversation as it was before a turn, and a rewind of it can be undone", () => {
    const before2 = Either.getOrThrow(conversationBefore(items, records, 2))
    expect(before2.map((item) => item.id)).toEqual(["u1", "a1"])
    const change = conversationChange(items, before2)
    const rewind: CheckpointRecord = { turn: 4, kind: "rewind", prompt: "rewind to turn 2", at: "2026-01-01T00:00:00Z", to: 2, keptItems: change.keptItems, removedItems: change.removedItems }
    const afterRewind = [...before2, user("u5"), answer("a5")]
    const all = [...records, rewind, turn(5, "u5")]
    // Rewinding to the rewind: the removed turns come back, what came after goes.
    expect(Either.getOrThrow(conversationBefore(afterRewind, all, 4)).map((item) => item.id)).toEqual(items.map((item) => item.id))
    // Rewinding past it, to turn 3: the state just before turn 3.
    expect(Either.getOrThrow(conversationBefore(afterRewind, all, 3)).map((item) => item.id)).toEqual(["u1", "a1", "u2", "a2"])
  })

  it("refuses a conversation rewind whose messages were compacted away", () => {
    expect(Either.isLeft(conversationBefore([answer("summary")], records, 2))).toBe(true)
  })

  it("restores each file from the first snapshot after the target that changed it", () => {
    const pairs = snapshotted(
      [
        turn(1, "u1", { before: "b1", after: "a1", files: [file("x")] }),
        turn(2, "u2"),
        turn(3, "u3", { before: "b3", after: "a3", files: [file("x"), file("y")] })
      ],
      2
    )
    expect(fileTargets(pairs)).toEqual([
      { path: "x", from: "b3", first: 0 },
      { path: "y", from: "b3", first: 0 }
    ])
  })

  it("marks what a rewind undid, and a rewind to that rewind stands them again", () => {
    const withSnapshots = [turn(1, "u1", { before: "b", after: "a" }), turn(2, "u2", { before: "b", after: "a" })]
    const rewound = markRewound(withSnapshots, 2, 3, "both")
    expect(rewound.map((record) => [record.filesUndoneBy, record.conversationUndoneBy])).toEqual([[undefined, undefined], [3, 3]])
    const rewind: CheckpointRecord = { turn: 3, kind: "rewind", prompt: "", at: "", before: "x", after: "y", keptItems: 1, removedItems: [] }
    const redone = markRewound([...rewound, rewind], 3, 4, "both")
    expect(redone.map((record) => [record.filesUndoneBy, record.conversationUndoneBy])).toEqual([[undefined, undefined], [undefined, undefined], [4, 4]])
    // A files-only rewind has no conversation for a later rewind to undo.
    const filesOnly: CheckpointRecord = { turn: 3, kind: "rewind", prompt: "", at: "", before: "x", after: "y" }
    expect(markRewound([...rewound, filesOnly], 3, 4, "both").at(-1)?.conversationUndoneBy).toBeUndefined()
  })
})
