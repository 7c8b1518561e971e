/**
 * The services of one session, composed once here and provided once by the command that runs it.
 * Built as a Context rather than a Layer graph: Layer construction costs ~10 ms of cold start in
 * the compiled binary, and these services have no dependencies worth a graph.
 */
import * as path from "node:path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"
import type { PreparedSession } from "../src/cli/prepare.ts"
import { Conversation } from "../src/engine/conversation.ts"
import { Operator, type OperatorShape } from "../src/engine/operator.ts"
import { Renderer, type RendererShape } from "../src/engine/renderer.ts"
import { Toolbox } from "../src/engine/toolbox.ts"
import { ModelClient, type ModelClientShape } from "../src/providers/model-client.ts"
import { SessionStore } from "../src/session/store.ts"
import { makeSpill } from "../src/tools/spill.ts"

export type SessionServices = ModelClient | Renderer | Operator | Toolbox | Conversation | SessionStore

/** The session's services; the conversation flushes to disk when the enclosing scope closes. */
export const sessionServices = (
  prepared: PreparedSession,
  client: ModelClientShape,
  renderer: RendererShape,
  operator: OperatorShape
): Effect.Effect<Context.Context<SessionServices>, never, Scope.Scope> =>
  Effect.gen(function* () {
    const base = Context.make(SessionStore, prepared.store).pipe(
      Context.add(ModelClient, client),
      Context.add(Renderer, renderer),
      Context.add(Operator, operator),
      Context.add(Toolbox, {
        tools: prepared.tools,
        context: {
          fence: prepared.fence,
          sessionId: prepared.document.id,
          spill: makeSpill(path.join(prepared.paths.spillDir, prepared.document.id))
        }
      })
    )
    const conversation = yield* Conversation.make(prepared.document).pipe(Effect.provide(base))
    return Context.add(base, Conversation, conversation)
  })
