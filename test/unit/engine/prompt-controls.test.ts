/**
 * The engine API behind /promptset and /promptattach: a switch rewrites the manifests and replaces
 * the active system message; it is refused, with nothing written, while a turn runs or when the
 * process flags force the choice.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import { headlessOperator } from "../../../layers/headless.ts"
import { startSession, type Session, type SessionServices } from "../../../layers/session.ts"
import { jsonRenderer } from "../../../src/cli/render/json.ts"
import { Conversation } from "../../../src/engine/conversation.ts"
import { noPromptSelection, type PromptSelection } from "../../../src/prompts/selection.ts"
import { preparedSession } from "../../support/prepared.ts"
import { tempDir, writeTree } from "../../support/temp.ts"

const config = { providers: { local: { protocol: "openai-chat" as const, baseURL: "http://127.0.0.1:9/v1", models: { m: {} } } } }

const quiet = { ...jsonRenderer, sessionStarted: () => Effect.void, note: () => Effect.void }

/** A workspace whose home has the set "terse" and the attachment "style", both disabled, and a broken set. */
const workspace = async (): Promise<string> => {
  const root = await tempDir()
  await writeTree(path.join(root, "home"), {
    "promptsets/terse/prompt.json": '{ "name": "Terse", "enabled": false, "x-owner": "ops" }\n',
    "promptsets/terse/work.md": "TERSE WORK in {{workspace}}\n",
    "promptsets/broken/prompt.json": "{ not json",
    "prompt-attachments/style/prompt.json": '{ "enabled": false }\n',
    "prompt-attachments/style/work.md": "STYLE RULES\n"
  })
  return root
}

const withSession = <A, E>(root: string, prompts: PromptSelection, body: (session: Session) => Effect.Effect<A, E, SessionServices>) =>
  Effect.runPromise(
    Effect.scoped(
      Effect.gen(function* () {
        const prepared = preparedSession(root, config, "local/m", { prompts })
        const session = yield* startSession(prepared, { env: {}, renderer: quiet, operator: headlessOperator })
        return yield* body(session).pipe(Effect.provide(session.services))
      })
    )
  )

const systemText = Effect.flatMap(Conversation, (conversation) => conversation.document).pipe(Effect.map((doc) => doc.system ?? ""))
const manifest = (root: string, dir: string) => fs.readFile(path.join(root, "home", dir, "prompt.json"), "utf8")

describe("/promptset and /promptattach in a session", () => {
  it("switches the set and attachments, replacing the system message each time", async () => {
    const root = await workspace()
    const seen = await withSession(root, noPromptSelection, (session) =>
      Effect.gen(function* () {
        const before = yield* systemText
        const switched = yield* session.controls.switchPromptSet("terse")
        const afterSet = yield* systemText
        const listing = yield* session.controls.listPromptSets
        const attached = yield* session.controls.changePromptAttachment("enable", "style")
        const afterAttachment = yield* systemText
        return { before, switched, afterSet, listing, attached, afterAttachment, notes: session.notes }
      })
    )
    expect(seen.before).not.toContain("TERSE WORK")
    expect(seen.notes.some((note) => note.includes(path.join("promptsets", "broken")))).toBe(true)
    expect(seen.switched.message).toBe("Enabled prompt set 'terse'.")
    expect(seen.afterSet).toBe(`TERSE WORK in ${root}\n`)
    expect(seen.listing.selected).toBe("terse")
    expect(seen.attached.written).toEqual([path.join(root, "home", "prompt-attachments", "style", "prompt.json")])
    expect(seen.afterAttachment).toBe(`TERSE WORK in ${root}\n\nSTYLE RULES\n`)
    expect(await manifest(root, "promptsets/terse")).toBe('{ "name": "Terse", "enabled": true, "x-owner": "ops" }\n')
  })

  it("refuses to switch while a turn runs, writing nothing", async () => {
    const root = await workspace()
    const results = await withSession(root, noPromptSelection, (session) =>
      Effect.gen(function* () {
        const conversation = yield* Conversation
        return yield* conversation.duringTurn(
          Effect.all([Effect.either(session.controls.switchPromptSet("terse")), Effect.either(session.controls.changePromptAttachment("enable", "style"))])
        )
      })
    )
    for (const result of results) {
      expect(Either.isLeft(result) && result.left.message).toMatch(/^A turn is running/)
    }
    expect(await manifest(root, "promptsets/terse")).toContain('"enabled": false')
    expect(await manifest(root, "prompt-attachments/style")).toBe('{ "enabled": false }\n')
  })

  it("uses a set forced by --prompt-set even when disabled, and refuses to switch away from it", async () => {
    const root = await workspace()
    const seen = await withSession(root, { ...noPromptSelection, promptSet: "terse" }, (session) =>
      Effect.gen(function* () {
        const system = yield* systemText
        const refused = yield* Effect.flip(session.controls.switchPromptSet("default"))
        return { system, refused }
      })
    )
    expect(seen.system).toBe(`TERSE WORK in ${root}\n`)
    expect(seen.refused.message).toMatch(/fixed to 'terse' by --prompt-set/)
    expect(await manifest(root, "promptsets/terse")).toContain('"enabled": false')
  })

  it("attaches nothing under --prompt-attachments off and refuses changes; --prompt-attachment adds a disabled one", async () => {
    const root = await workspace()
    const off = await withSession(root, { ...noPromptSelection, attachmentsOff: true }, (session) =>
      Effect.gen(function* () {
        const refused = yield* Effect.flip(session.controls.changePromptAttachment("enable", "style"))
        return { refused, system: yield* systemText }
      })
    )
    expect(off.refused.message).toMatch(/--prompt-attachments off/)
    expect(off.system).not.toContain("STYLE RULES")
    const forced = await withSession(root, { ...noPromptSelection, forcedAttachments: ["style"] }, () => systemText)
    expect(forced).toMatch(/\n\nSTYLE RULES\n$/)
    expect(await manifest(root, "prompt-attachments/style")).toBe('{ "enabled": false }\n')
  })
})
