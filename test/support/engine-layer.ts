/** The services the executor needs, from their test layers: a real policy, toolbox and conversation over `workspace`. */
import * as path from "node:path"
import * as Layer from "effect/Layer"
import { ApprovalPolicy } from "../../src/approval/approval-policy.ts"
import type { ReviewerShape } from "../../src/approval/reviewer.ts"
import { Conversation } from "../../src/engine/conversation.ts"
import { Operator, type OperatorShape } from "../../src/engine/operator.ts"
import { Renderer, type RendererShape } from "../../src/engine/renderer.ts"
import { Toolbox } from "../../src/engine/toolbox.ts"
import { Redactor } from "../../src/secrets/redactor.ts"
import { MediaStore } from "../../src/media/media-store.ts"
import { PluginLoader } from "../../src/plugins/plugin-loader.ts"
import { makeSessionStore, SessionStore } from "../../src/session/store.ts"
import type { Tool } from "../../src/tools/tool.ts"

export interface EngineLayerOptions {
  readonly workspace: string
  readonly tools: ReadonlyArray<Tool>
  readonly renderer: RendererShape
  readonly operator: OperatorShape
  readonly reviewer?: ReviewerShape
  /** Where the session file goes (default: a sessions folder beside the workspace). */
  readonly sessionsDir?: string
  /** The plugins' hooks (none by default). */
  readonly plugins?: Layer.Layer<PluginLoader>
}

export const engineLayer = (options: EngineLayerOptions) => {
  const store = makeSessionStore(options.sessionsDir ?? path.join(path.dirname(options.workspace), `${path.basename(options.workspace)}-sessions`))
  const storeLayer = Layer.succeed(SessionStore, store)
  const document = store.create({ workspace: options.workspace, model: "local/m", mode: "work", approval: "default" })
  return Layer.mergeAll(
    Toolbox.layerTest(options.tools, document.id).pipe(Layer.provideMerge(Layer.merge(ApprovalPolicy.layerTest(options.workspace, options.reviewer), Redactor.layerTest()))),
    Layer.scoped(Conversation, Conversation.make(document)).pipe(Layer.provideMerge(storeLayer)),
    Layer.succeed(Renderer, options.renderer),
    Layer.succeed(Operator, options.operator),
    MediaStore.layerTest(),
    options.plugins ?? PluginLoader.layerTest()
  )
}
