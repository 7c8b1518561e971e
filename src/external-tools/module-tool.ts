/**
 * The module runner (SPEC X3): a set's entry module (.mjs, .js or .ts; Bun runs TypeScript as is)
 * is imported once the set may run, and each of its `tools` becomes a plain Tool value. Its
 * optional `classify(name, args, ctx)` may only raise the host's classification, has a 2-second
 * budget, fails closed (a throw, a bad answer or a timeout = high risk, ask) and, after a
 * timeout, stays off (calls fail closed) until the tools are reloaded. A synchronous endless loop
 * in the module cannot be stopped from the same thread: the budget covers what returns to the
 * event loop.
 */
import { pathToFileURL } from "node:url"
import * as path from "node:path"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { maxAuthority, maxRisk, widestScope, type Authority, type Classification, type Risk, type TouchedPath } from "../approval/classification.ts"
import { jsonSchemaChecker, objectSchemaProblem } from "../tools/json-schema-check.ts"
import { foreignSchema } from "../tools/params.ts"
import { defineTool, ToolError, type Tool, type ToolContext, type ToolOutput } from "../tools/tool.ts"
import { attachContent, parseContent } from "./content-output.ts"
import type { LoadableSet } from "./discover.ts"
import { externalClassification } from "./classify.ts"
import { ensureDataDirs, type ExternalToolHost } from "./host.ts"
import { toolNamePattern, type ModuleManifest } from "./manifest.ts"
import { messageOf } from "../text/error-text.ts"

export const CLASSIFIER_BUDGET_MS = 2000

/** What a module's run and classify receive. */
export interface ModuleToolContext {
  readonly workspace: string
  readonly sessionId: string
  readonly approval: string
  readonly toolData: string
  readonly projectData: string
  /** Aborted when the call times out or the turn is cancelled. */
  readonly signal: AbortSignal
}

interface ModuleTool {
  readonly definition: { readonly name: string; readonly description: string; readonly parameters: Readonly<Record<string, unknown>> }
  readonly run: (args: unknown, ctx: ModuleToolContext) => unknown
}

type Classifier = (name: string, args: unknown, ctx: ModuleToolContext) => unknown

export interface ClassifierState {
  /** Set after a timeout: calls fail closed until reload. */
  offReason: string | undefined
}

export interface LoadedModuleSet {
  readonly tools: ReadonlyArray<Tool>
  readonly notes: ReadonlyArray<string>
  readonly hasClassifier: boolean
  readonly classifier: ClassifierState
}

const isObject = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null


let generation = 0

/** Imports the entry module afresh (a reload sees edits: the URL differs each time). */
const importEntry = (file: string): Effect.Effect<unknown, string> =>
  Effect.tryPromise({
    try: () => import(`${pathToFileURL(file).href}?load=${++generation}`) as Promise<unknown>,
    catch: (error) => `cannot load ${file}: ${messageOf(error)}`
  })

const moduleTools = (exports: unknown, file: string, notes: Array<string>): { tools: Array<ModuleTool>; classify: Classifier | undefined } => {
  const tools = isObject(exports) ? exports["tools"] : undefined
  const classify = isObject(exports) && typeof exports["classify"] === "function" ? (exports["classify"] as Classifier) : undefined
  if (!Array.isArray(tools)) {
    notes.push(`${file}: expected \`export const tools = [{ definition, run }]\`; the tool set is skipped`)
    return { tools: [], classify }
  }
  const valid: Array<ModuleTool> = []
  tools.forEach((tool: unknown, index) => {
    const where = `${file}: tools[${index}]`
    const definition = isObject(tool) ? tool["definition"] : undefined
    if (!isObject(tool) || typeof tool["run"] !== "function" || !isObject(definition)) {
      notes.push(`${where}: expected { definition: { name, description, parameters }, run(args, ctx) }; skipped`)
      return
    }
    const name = definition["name"]
    if (typeof name !== "string" || !toolNamePattern.test(name)) {
      notes.push(`${where}.definition.name: expected a tool name (a letter or _, then up to 63 letters, digits, _ or -); skipped`)
      return
    }
    if (typeof definition["description"] !== "string" || definition["description"].trim() === "") {
      notes.push(`${where}.definition.description: expected a non-empty string; skipped`)
      return
    }
    const parameters = definition["parameters"] ?? { type: "object", properties: {} }
    const problem = objectSchemaProblem(parameters)
    if (problem !== undefined) {
      notes.push(`${where}.definition.parameters: ${problem}; skipped`)
      return
    }
    valid.push({
      definition: { name, description: definition["description"], parameters: parameters as Record<string, unknown> },
      run: tool["run"] as ModuleTool["run"]
    })
  })
  return { tools: valid, classify }
}

const contextFor = (host: ExternalToolHost, set: LoadableSet, context: ToolContext, signal: AbortSignal) =>
  Effect.gen(function* () {
    const dirs = yield* ensureDataDirs(host, set.name)
    const approval = yield* host.approval
    return { workspace: host.workspace, sessionId: context.sessionId, approval, toolData: dirs.toolData, projectData: dirs.projectData, signal } satisfies ModuleToolContext
  })

/** A promise-returning call with a budget; the signal is aborted on timeout and on interruption. */
const callWithBudget = <A>(body: (signal: AbortSignal) => unknown, ms: number): Effect.Effect<Option.Option<A>, unknown> =>
  Effect.tryPromise({ try: async (signal) => (await body(signal)) as A, catch: (error) => error }).pipe(Effect.timeoutOption(Duration.millis(ms)))

const risks: ReadonlyArray<Risk> = ["low", "medium", "high", "forbidden"]
const authorities: ReadonlyArray<Authority> = ["read", "write", "execute"]

/** The classifier's answer merged into the host's: only raised, never lowered (SPEC X3). */
export const raiseClassification = (
  base: Classification,
  answer: { readonly risk?: Risk | undefined; readonly authority?: Authority | undefined; readonly paths?: ReadonlyArray<TouchedPath> | undefined }
): Classification => {
  const paths = [...base.paths, ...(answer.paths ?? [])]
  const scope = widestScope(base.scope, ...paths.map((entry) => entry.scope))
  return {
    ...base,
    risk: maxRisk(base.risk, answer.risk ?? base.risk, scope === "outside" ? "high" : "low"),
    authority: maxAuthority(base.authority, answer.authority ?? base.authority),
    scope,
    paths
  }
}

const failClosed = (base: Classification, why: string): Classification => ({ ...base, risk: maxRisk(base.risk, "high"), ask: true, summary: `${base.summary} (${why})` })

const classifyWith = (
  classify: Classifier,
  state: ClassifierState,
  name: string,
  args: unknown,
  base: Classification,
  ctx: (signal: AbortSignal) => Effect.Effect<ModuleToolContext>,
  context: ToolContext
): Effect.Effect<Classification> =>
  Effect.gen(function* () {
    if (state.offReason !== undefined) return failClosed(base, `its classifier is off: ${state.offReason}; /tools reload turns it back on`)
    const answer = yield* callWithBudget<unknown>((signal) => Effect.runPromise(ctx(signal)).then((c) => classify(name, args, c)), CLASSIFIER_BUDGET_MS).pipe(Effect.either)
    if (answer._tag === "Left") return failClosed(base, `its classifier failed: ${messageOf(answer.left)}`)
    if (Option.isNone(answer.right)) {
      state.offReason = `it took longer than ${CLASSIFIER_BUDGET_MS / 1000} s`
      return failClosed(base, `its classifier took longer than ${CLASSIFIER_BUDGET_MS / 1000} s and is off until /tools reload`)
    }
    const value = answer.right.value
    if (value === undefined || value === null) return base
    if (!isObject(value)) return failClosed(base, "its classifier answered something other than { risk, authority, paths }")
    const risk = value["risk"]
    const authority = value["authority"]
    const paths = value["paths"]
    if (risk !== undefined && !risks.includes(risk as Risk)) return failClosed(base, `its classifier answered an unknown risk ${JSON.stringify(risk)}`)
    if (authority !== undefined && !authorities.includes(authority as Authority)) return failClosed(base, `its classifier answered an unknown authority ${JSON.stringify(authority)}`)
    if (paths !== undefined && (!Array.isArray(paths) || paths.some((entry) => typeof entry !== "string"))) return failClosed(base, "its classifier's paths must be a list of strings")
    const located = yield* Effect.forEach((paths ?? []) as ReadonlyArray<string>, (entry) => context.fence.locate(entry, "write")).pipe(Effect.either)
    if (located._tag === "Left") return failClosed(base, `its classifier named a path the host cannot place: ${located.left.message}`)
    return raiseClassification(base, {
      risk: risk as Risk | undefined,
      authority: authority as Authority | undefined,
      paths: located.right.map((entry) => ({ real: entry.real, access: "write" as const, scope: entry.scope }))
    })
  })

const runModuleTool = (tool: ModuleTool, manifest: ModuleManifest, ctx: (signal: AbortSignal) => Effect.Effect<ModuleToolContext>, args: unknown, context: ToolContext) =>
  Effect.gen(function* () {
    const name = tool.definition.name
    const result = yield* callWithBudget<unknown>((signal) => Effect.runPromise(ctx(signal)).then((c) => tool.run(args, c)), manifest.timeoutSeconds * 1000).pipe(
      Effect.mapError((error) => new ToolError({ message: `${name} failed: ${messageOf(error)}` }))
    )
    if (Option.isNone(result)) return { text: `${name} timed out after ${manifest.timeoutSeconds} s and was stopped.`, isError: true } satisfies ToolOutput
    const content = parseContent(result.value ?? "", `${name}'s result`)
    if (typeof content === "string") return yield* new ToolError({ message: content })
    return yield* attachContent(name, content, context).pipe(Effect.catchTag("FenceError", (error) => Effect.fail(new ToolError({ message: `${name}: ${error.message}` }))))
  })

export const loadModuleSet = (set: LoadableSet & { readonly manifest: ModuleManifest }, host: ExternalToolHost): Effect.Effect<LoadedModuleSet> =>
  Effect.gen(function* () {
    const notes: Array<string> = []
    const file = path.join(set.dir, set.manifest.entry)
    const exports = yield* importEntry(file).pipe(Effect.either)
    const classifier: ClassifierState = { offReason: undefined }
    if (exports._tag === "Left") return { tools: [], notes: [`${exports.left}; the tool set ${set.name} is skipped`], hasClassifier: false, classifier }
    const found = moduleTools(exports.right, file, notes)
    const manifest = set.manifest
    const tools = found.tools.map((tool) => {
      const ctx = (context: ToolContext) => (signal: AbortSignal) => contextFor(host, set, context, signal)
      // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- no Schema fields: the arguments are checked against a foreign JSON Schema
      return defineTool<{}>({
        name: tool.definition.name,
        description: tool.definition.description,
        parameters: foreignSchema(tool.definition.parameters, jsonSchemaChecker(tool.definition.parameters)),
        modes: manifest.catalogs,
        external: true,
        classify: (args, context) => {
          const base = externalClassification(host, set, tool.definition.name, manifest.approval, `run ${manifest.entry} ${tool.definition.name}`, context)
          return found.classify === undefined ? Effect.succeed(base) : classifyWith(found.classify, classifier, tool.definition.name, args, base, ctx(context), context)
        },
        run: (args, context) => runModuleTool(tool, manifest, ctx(context), args, context)
      })
    })
    return { tools, notes, hasClassifier: found.classify !== undefined, classifier }
  })
