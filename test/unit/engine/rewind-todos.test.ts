/** A conversation rewind takes the todo list back too (issue 25): the model never sees the undone turns' todos, and a redo brings them back. */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { describe, expect, it } from "vitest"
import { openCheckpointStore } from "../../../src/checkpoints/open.ts"
import { defaultCheckpointSettings } from "../../../src/checkpoints/store.ts"
import { Conversation } from "../../../src/engine/conversation.ts"
import { applyRewind, prepareRewind, rewoundDocument } from "../../../src/engine/rewind.ts"
import { makeTurnCheckpoints } from "../../../src/engine/turn-checkpoints.ts"
import type { Todo } from "../../../src/session/items.ts"
import { makeSessionStore, SessionStore } from "../../../src/session/store.ts"
import { fixture } from "../checkpoints/support.ts"

describe("rewind and the todo list", () => {
  it("rewinding the conversation to turn 2 puts back the todos as turn 2 found them; rewinding to the rewind brings the later ones back", async () => {
    const { workspace, home } = await fixture()
    fs.writeFileSync(path.join(workspace, "a.txt"), "a\n")
    const sessions = makeSessionStore(path.join(home, "sessions"))
    const scope = Effect.runSync(Scope.make())
    const conversation = await Effect.runPromise(
      Conversation.make(sessions.create({ workspace, model: "local/m", mode: "work", approval: "full" })).pipe(Effect.provideService(SessionStore, sessions), Scope.extend(scope))
    )
    const checkpoints = await Effect.runPromise(
      makeTurnCheckpoints({ sessionId: "s", conversation, open: openCheckpointStore(workspace, home, defaultCheckpointSettings), note: () => Effect.void })
    )
    const early: ReadonlyArray<Todo> = [{ content: "read the code", status: "in_progress", priority: "high" }]
    const later: ReadonlyArray<Todo> = [
      { content: "read the code", status: "completed", priority: "high" },
      { content: "write the fix", status: "in_progress", priority: "medium" }
    ]
    // What todowrite does: the document's todos change during the turn.
    const turn = async (id: string, todos: ReadonlyArray<Todo>) => {
      await Effect.runPromise(conversation.append({ _tag: "user", id, text: id }))
      await Effect.runPromise(checkpoints.turnStarted({ id, text: id }))
      await Effect.runPromise(conversation.update((doc) => ({ ...doc, todos })))
      await Effect.runPromise(checkpoints.turnEnded)
    }
    await turn("m1", early)
    await turn("m2", later)
    const doc = await Effect.runPromise(conversation.document)
    expect(doc.todos).toEqual(later)

    const store = await Effect.runPromise(checkpoints.store)
    const prepared = await Effect.runPromise(prepareRewind(store, doc, 2, "conversation"))
    const rewound = rewoundDocument(doc, await Effect.runPromise(applyRewind(store, doc, prepared, new Set())))
    expect(rewound.items.map((item) => item.id)).toEqual(["m1"])
    expect(rewound.todos).toEqual(early)

    // Redo: rewinding to the rewind (record 3) brings the later todos back with the messages.
    const redoPrepared = await Effect.runPromise(prepareRewind(store, rewound, 3, "conversation"))
    const redone = rewoundDocument(rewound, await Effect.runPromise(applyRewind(store, rewound, redoPrepared, new Set())))
    expect(redone.items.map((item) => item.id)).toEqual(["m1", "m2"])
    expect(redone.todos).toEqual(later)

    // Back to turn 1: no todos then.
    const first = await Effect.runPromise(prepareRewind(store, redone, 1, "conversation"))
    const none = rewoundDocument(redone, await Effect.runPromise(applyRewind(store, redone, first, new Set())))
    expect(none.items).toEqual([])
    expect(none.todos).toBeUndefined()
    await Effect.runPromise(Scope.close(scope, Exit.void))
  })
})
