/** A PreparedSession for engine tests: a real home, store and workspace under `root`, no flags. */
import * as path from "node:path"
import * as Effect from "effect/Effect"
import type { PreparedSession } from "../../layers/prepare.ts"
import { makeCrystalPaths } from "../../src/config/paths.ts"
import type { Config } from "../../src/config/schema.ts"
import { noPromptSelection, type PromptSelection } from "../../src/prompts/selection.ts"
import { resolveModel } from "../../src/providers/catalog.ts"
import { makeSessionStore } from "../../src/session/store.ts"

export const preparedSession = (
  root: string,
  config: Config,
  modelRef: string,
  options: { readonly prompts?: PromptSelection } = {}
): PreparedSession => {
  const paths = makeCrystalPaths(root, { CRYSTAL_HOME: path.join(root, "home") })
  const model = Effect.runSync(resolveModel({ requested: { ref: modelRef, source: "test" }, config, configFile: paths.configFile, env: {} }))
  const store = makeSessionStore(paths.sessionsDir)
  return {
    paths,
    config,
    model,
    store,
    document: store.create({ workspace: root, model: model.ref, mode: "work", approval: "default" }),
    resumed: false,
    disabledTools: [],
    prompts: options.prompts ?? noPromptSelection,
    spillDir: path.join(paths.spillDir, "x"),
    maxSteps: 5,
    skills: [],
    notes: []
  }
}
