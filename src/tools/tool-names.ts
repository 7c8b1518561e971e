/**
 * The names of the tools this build provides, each taken from the spec or the constant its tool
 * is defined with (no name is written twice). Every module here is on the start-up path anyway:
 * the session makes these tools as it starts.
 */
import { bashToolNames } from "./bash-specs.ts"
import { describeImageSpec, viewImageSpec } from "./image-specs.ts"
import { planToolName } from "./plan-tool.ts"
import { proposePlanToolName } from "./propose-plan-tool.ts"
import { questionToolName } from "./question-tool.ts"
import { searchSpec } from "./search-spec.ts"
import { skillToolName } from "./skill-tool.ts"
import { taskToolName } from "./task-tool.ts"
import { globSpec, grepSpec, listSpec, readSpec, treeSpec } from "./specs.ts"
import { todoToolNames } from "./todo-tools.ts"
import { editSpec, writeSpec } from "./write-specs.ts"
import { webFetchSpec } from "./web-fetch-spec.ts"

/** The built-in tools' names, in the order makeBuiltinTools offers them. */
export const builtinToolNames: ReadonlyArray<string> = [readSpec, listSpec, treeSpec, globSpec, grepSpec, searchSpec, editSpec, writeSpec].map((spec) => spec.name)

/** The tools each session makes for itself, because they need its services (todo list, plan file, operator, skills, shell). */
export const sessionToolNames: ReadonlyArray<string> = [
  ...Object.values(todoToolNames),
  planToolName,
  proposePlanToolName,
  questionToolName,
  skillToolName,
  viewImageSpec.name,
  describeImageSpec.name,
  webFetchSpec.name,
  ...Object.values(bashToolNames),
  taskToolName
]

/** Every tool this build provides; `--disable-tool` accepts exactly these names (a session test holds it to the real list). */
export const providedToolNames: ReadonlyArray<string> = [...builtinToolNames, ...sessionToolNames]

/** Names no plugin or external tool may take, even when disabled (SPEC M5). */
export const reservedToolNames: ReadonlySet<string> = new Set(providedToolNames)
