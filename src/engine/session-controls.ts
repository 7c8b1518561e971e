/**
 * The engine API behind /mode, /plan, /work, /approval and /access: each change is recorded in
 * the session document, and the active system message is recomposed so the model is told. Also
 * /compact and /side, which return what the caller shows.
 */
import * as fs from "node:fs"
import * as Effect from "effect/Effect"
import { ApprovalPolicy } from "../approval/approval-policy.ts"
import type { Access } from "../approval/path-fence.ts"
import type { ApprovalMode } from "../approval/policy.ts"
import { realDirectory, typedPath } from "../files/directories.ts"
import type { AccessGrant, Mode, SessionDocument } from "../session/document.ts"
import { changePromptAttachment, listPromptAttachments, type AttachmentAction } from "../prompts/attachments.ts"
import { PromptResolver } from "../prompts/prompt-resolver.ts"
import { listPromptSets, switchPromptSet } from "../prompts/sets.ts"
import { Providers } from "../providers/providers.ts"
import { compactConversation, type CompactionOutcome } from "./compaction.ts"
import { askSideQuestion } from "./side-question.ts"
import { Conversation } from "./conversation.ts"
import { CommandRefused } from "./errors.ts"

/**
 * The commands above, on the session's services: Providers switches the model, PromptResolver
 * recomposes the system text, ApprovalPolicy takes the new grants.
 */
export const makeSessionControls = () => {
  const change = (edit: (doc: SessionDocument) => SessionDocument) =>
    Effect.gen(function* () {
      const conversation = yield* Conversation
      const resolver = yield* PromptResolver
      yield* conversation.update(edit)
      const system = yield* resolver.compose(yield* conversation.document)
      yield* conversation.update((doc) => ({ ...doc, system }))
      yield* conversation.save
    })

  const applyGrants = (grants: ReadonlyArray<AccessGrant>) =>
    Effect.gen(function* () {
      yield* (yield* ApprovalPolicy).setAccess(grants)
      yield* change((doc) => ({ ...doc, access: grants }))
    })

  const prompts = Effect.map(PromptResolver, (resolver) => ({ paths: resolver.paths, selection: resolver.selection }))

  return {
    /**
     * /model: the next request goes to the new model with the same transcript. Nothing is sent
     * raw to another provider: each adapter replays only its own protocol's reasoning state.
     */
    switchModel: (ref: string, source = "/model") =>
      Effect.gen(function* () {
        const entry = yield* (yield* Providers).switchTo(ref, source)
        yield* change((doc) => ({ ...doc, model: entry.ref }))
        return entry
      }),
    setMode: (mode: Mode) => change((doc) => ({ ...doc, mode })),
    setApproval: (approval: ApprovalMode) => change((doc) => ({ ...doc, approval })),
    /** /promptset: every set, the source of its Work, Plan and Review, and the one in use. */
    listPromptSets: Effect.map(prompts, ({ paths, selection }) => listPromptSets(paths.home, selection.promptSet)),
    /**
     * /promptset NAME: refused while a turn runs or --prompt-set is in force (nothing written);
     * otherwise the manifests change and the active system message is replaced. Review texts are
     * composed at each review, so they follow without more.
     */
    switchPromptSet: (name: string) =>
      Effect.gen(function* () {
        const idle = !(yield* (yield* Conversation).turnRunning)
        const { paths, selection } = yield* prompts
        const result = yield* switchPromptSet(paths.home, name, { forced: selection.promptSet, idle })
        yield* change((doc) => doc)
        return result
      }),
    /** /promptattach: the attachments of the home and the workspace, with where each attaches now. */
    listPromptAttachments: Effect.map(prompts, ({ paths, selection }) => listPromptAttachments(paths, selection)),
    /** /promptattach enable|disable|up|down NAME: refused while a turn runs, and as --prompt-attachment(s) say. */
    changePromptAttachment: (action: AttachmentAction, name: string) =>
      Effect.gen(function* () {
        const idle = !(yield* (yield* Conversation).turnRunning)
        const { paths, selection } = yield* prompts
        const result = yield* changePromptAttachment(paths, action, name, { idle, flags: selection })
        yield* change((doc) => doc)
        return result
      }),
    /** /compact [INSTRUCTIONS]: never fails; a failed summary leaves the conversation as it was (and says so). */
    compact: (instructions?: string) =>
      Effect.gen(function* () {
        const conversation = yield* Conversation
        if (yield* conversation.turnRunning) {
          return { _tag: "Refused", reason: "/compact waits for the running turn to end" } satisfies CompactionOutcome
        }
        // Counted as a turn, so the commands that wait for an idle session wait for it too.
        return yield* conversation.duringTurn(compactConversation("manual", instructions))
      }),
    /** /side QUESTION: the answer, from the current context without tools; nothing is kept. */
    side: (question: string) => askSideQuestion(question),
    listAccess: Effect.map(Conversation, (conversation) => conversation.document).pipe(
      Effect.flatten,
      Effect.map((doc) => doc.access ?? [])
    ),
    /** /access add DIR [read|write]: the directory must exist; granting it again changes its access. */
    addAccess: (dir: string, access: Access) =>
      Effect.gen(function* () {
        const conversation = yield* Conversation
        const doc = yield* conversation.document
        const real = yield* realDirectory(typedPath(doc.workspace, dir), "/access:")
        const others = (doc.access ?? []).filter((grant) => grant.dir !== real)
        yield* applyGrants([...others, { dir: real, access }])
        return real
      }),
    /** /access remove DIR */
    removeAccess: (dir: string) =>
      Effect.gen(function* () {
        const conversation = yield* Conversation
        const doc = yield* conversation.document
        const typed = typedPath(doc.workspace, dir)
        const target = fs.existsSync(typed) ? fs.realpathSync(typed) : typed
        const grants = doc.access ?? []
        if (!grants.some((grant) => grant.dir === target)) {
          return yield* new CommandRefused({ message: `/access: ${dir} is not granted (granted: ${grants.map((grant) => grant.dir).join(", ") || "none"})` })
        }
        yield* applyGrants(grants.filter((grant) => grant.dir !== target))
      })
  }
}

export type SessionControls = ReturnType<typeof makeSessionControls>
