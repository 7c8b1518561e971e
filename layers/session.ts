/** The layer graph of one session: composed once here, provided once by the command that runs it. */
import * as path from "node:path"
import * as Layer from "effect/Layer"
import type { PreparedSession } from "../src/cli/prepare.ts"
import { Conversation } from "../src/engine/conversation.ts"
import type { Operator } from "../src/engine/operator.ts"
import type { Renderer } from "../src/engine/renderer.ts"
import { Toolbox } from "../src/engine/toolbox.ts"
import { ModelClient, type ModelClientShape } from "../src/providers/model-client.ts"
import { SessionStore } from "../src/session/store.ts"
import { makeSpill } from "../src/tools/spill.ts"

export type SessionServices = ModelClient | Renderer | Operator | Toolbox | Conversation | SessionStore

export const sessionLayer = (
  prepared: PreparedSession,
  client: ModelClientShape,
  renderer: Layer.Layer<Renderer>,
  operator: Layer.Layer<Operator>
): Layer.Layer<SessionServices> => {
  const store = Layer.succeed(SessionStore, prepared.store)
  const toolbox = Layer.succeed(Toolbox, {
    tools: prepared.tools,
    context: {
      fence: prepared.fence,
      sessionId: prepared.document.id,
      spill: makeSpill(path.join(prepared.paths.spillDir, prepared.document.id))
    }
  })
  return Layer.mergeAll(
    Layer.succeed(ModelClient, client),
    renderer,
    operator,
    toolbox,
    store,
    Conversation.layer(prepared.document).pipe(Layer.provide(store))
  )
}
