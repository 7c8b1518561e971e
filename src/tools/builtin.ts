/**
 * The built-in tools as offered to the model. Only their definitions (specs.ts) are loaded here;
 * each implementation module is imported on the tool's first run, so that none of it (nor
 * node:child_process, the walker or the gitignore compiler) is evaluated at start-up.
 */
import { describeImageSpec, viewImageSpec } from "./image-specs.ts"
import { globSpec, grepSpec, listSpec, readSpec, treeSpec } from "./specs.ts"
import type { KeyedSemaphore } from "../files/keyed-semaphore.ts"
import type { SearchIndexCache } from "../search/cache.ts"
import { searchSpec } from "./search-spec.ts"
import { lazyTool, type Tool } from "./tool.ts"
import { webFetchSpec } from "./web-fetch-spec.ts"
import { editSpec, writeSpec } from "./write-specs.ts"

/**
 * The built-in tools of one session, in the order they are offered to the model; search keeps its
 * indexes in `searchIndexes`; edit and write change one file at a time through this tool set's own
 * KeyedSemaphore, made with the first edit or write.
 */
export const makeBuiltinTools = (searchIndexes: SearchIndexCache): ReadonlyArray<Tool> => {
  let locks: Promise<KeyedSemaphore> | undefined
  const fileLocks = (): Promise<KeyedSemaphore> =>
    (locks ??= import("../files/keyed-semaphore.ts").then((module) => new module.KeyedSemaphore()))
  return [
    lazyTool(readSpec, () => import("./read.ts").then((module) => module.readFile)),
    lazyTool(listSpec, () => import("./list.ts").then((module) => module.listDirectory)),
    lazyTool(treeSpec, () => import("./tree.ts").then((module) => module.showTree)),
    lazyTool(globSpec, () => import("./glob.ts").then((module) => module.findFiles)),
    lazyTool(grepSpec, () => import("./grep.ts").then((module) => (args, context) => module.searchFiles(args, context))),
    lazyTool(searchSpec, () => import("./search.ts").then((module) => module.makeSearchWorkspace(searchIndexes))),
    lazyTool(editSpec, async () => (await import("./edit.ts")).makeEditFile(await fileLocks())),
    lazyTool(writeSpec, async () => (await import("./write.ts")).makeWriteFile(await fileLocks()))
  ]
}

/**
 * The image tools (SPEC I7): view_image (the catalog offers it only while the active model takes
 * images) and, when config.json names an imageModel, describe_image. Their services come on the
 * ToolContext (`images`).
 */
export const makeImageTools = (options: { readonly describe: boolean }): ReadonlyArray<Tool> => [
  lazyTool(viewImageSpec, () => import("./view-image.ts").then((module) => module.viewImage)),
  ...(options.describe ? [lazyTool(describeImageSpec, () => import("./describe-image.ts").then((module) => module.describeImage))] : [])
]

/**
 * web_fetch, unless config.json says `"webFetch": false`; `allowPrivate` lists the private hosts
 * and ranges it may reach. The fetch code and the HTML libraries load on its first call.
 */
export const makeWebFetchTools = (config: boolean | { readonly allowPrivate?: ReadonlyArray<string> | undefined } | undefined): ReadonlyArray<Tool> => {
  if (config === false) return []
  const allowPrivate = typeof config === "object" ? (config.allowPrivate ?? []) : []
  return [
    lazyTool(webFetchSpec, () =>
      import("./web-fetch.ts").then((module) => module.makeWebFetch({ ...module.webFetchDefaults, allowPrivate }))
    )
  ]
}
