/**
 * The exec runner (SPEC X2): one tool of a tools.json as a plain Tool value. The call's argv is
 * the manifest's `command` (`./` and `../` parts resolved in the set's folder) plus the `argv` map's
 * flags; stdin gets the arguments as JSON; the working directory is the workspace root. Output is
 * capped and spilled like bash's; a timeout or a cancelled turn kills the program's whole tree.
 */
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { jsonSchemaChecker } from "../tools/json-schema-check.ts"
import { foreignSchema } from "../tools/params.ts"
import { defineTool, type Tool, type ToolContext } from "../tools/tool.ts"
import { isSetRelative, type LoadableSet } from "./discover.ts"
import { externalClassification } from "./classify.ts"
import type { ExternalToolHost } from "./host.ts"
import type { ExecToolDeclaration } from "./manifest.ts"

export type Args = Readonly<Record<string, unknown>>

/** The flags of the `argv` map, in its order: `--flag VALUE`; true is the bare flag; false and absent omit it. */
export const argvFlags = (declaration: ExecToolDeclaration, args: Args): ReadonlyArray<string> | string => {
  const flags: Array<string> = []
  for (const [property, flag] of declaration.argv) {
    const value = args[property]
    if (value === undefined || value === null || value === false) continue
    if (value === true) flags.push(flag)
    else if (typeof value === "string" || typeof value === "number") flags.push(flag, String(value))
    else return `${declaration.name}: "${property}" is mapped to ${flag} but is not a string, number or boolean`
  }
  return flags
}

export const commandArgv = (set: Pick<LoadableSet, "dir">, declaration: ExecToolDeclaration, args: Args): ReadonlyArray<string> | string => {
  const flags = argvFlags(declaration, args)
  if (typeof flags === "string") return flags
  return [...declaration.command.map((part) => (isSetRelative(part) ? path.resolve(set.dir, part) : part)), ...flags]
}

const shownArgv = (argv: ReadonlyArray<string>, set: Pick<LoadableSet, "dir">): string =>
  argv.map((part) => (part.startsWith(`${set.dir}${path.sep}`) ? `./${path.relative(set.dir, part)}` : /[\s'"$`\\]/.test(part) || part === "" ? JSON.stringify(part) : part)).join(" ")

export const execEnvironment = (host: ExternalToolHost, context: ToolContext, approval: string, dirs: { toolData: string; projectData: string }): NodeJS.ProcessEnv => ({
  ...host.env,
  CRYSTAL_WORKSPACE: host.workspace,
  CRYSTAL_SESSION: context.sessionId,
  CRYSTAL_APPROVAL: approval,
  CRYSTAL_TOOL_DATA: dirs.toolData,
  CRYSTAL_PROJECT_DATA: dirs.projectData
})

export const makeExecTool = (set: LoadableSet, declaration: ExecToolDeclaration, host: ExternalToolHost): Tool =>
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type -- no Schema fields: the arguments are checked against a foreign JSON Schema
  defineTool<{}>({
    name: declaration.name,
    description: declaration.description,
    parameters: foreignSchema(declaration.parameters, jsonSchemaChecker(declaration.parameters)),
    modes: set.manifest.catalogs,
    external: true,
    classify: (args, context) =>
      Effect.sync(() => {
        const argv = commandArgv(set, declaration, args as Args)
        const shown = typeof argv === "string" ? declaration.command.join(" ") : shownArgv(argv, set)
        return externalClassification(host, set, declaration.name, declaration.approval, `run \`${shown}\``, context)
      }),
    // The process code (node:child_process) loads with the first call.
    run: (args, context) => Effect.flatMap(Effect.promise(() => import("./exec-run.ts")), (module) => module.runExec(set, declaration, host, args as Args, context))
  })
