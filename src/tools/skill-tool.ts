/** The skill tool (SPEC T7): loads a discovered skill's instructions and tells where its other files are. */
import * as Effect from "effect/Effect"
import { maxInstructionBytes, readConfined } from "../files/confined-read.ts"
import { parseFrontMatter, type Skill } from "../skills/discover.ts"
import * as P from "./params.ts"
import { everyMode, defineTool, ToolError, type Tool } from "./tool.ts"

export const skillToolName = "skill"

export const makeSkillTool = (skills: ReadonlyArray<Skill>): Tool =>
  defineTool({
    name: skillToolName,
    modes: everyMode,
    description: "Load a skill listed in the system text: its instructions, and the folder holding its other files (read them with read).",
    parameters: P.object({ name: P.string("The skill's name.") }),
    classify: (args) =>
      Effect.succeed({ risk: "low", authority: "read", scope: "granted", summary: `load the skill ${args.name}`, paths: [] }),
    run: ({ name }) =>
      Effect.gen(function* () {
        const skill = skills.find((candidate) => candidate.name === name)
        if (skill === undefined) {
          return yield* new ToolError({ message: `no skill named '${name}'; available: ${skills.map((candidate) => candidate.name).join(", ")}` })
        }
        // Read as at discovery: a regular file inside its root, never through a link that now leads out.
        const read = readConfined(skill.root, skill.file, maxInstructionBytes)
        if (read._tag !== "Read") {
          return yield* new ToolError({ message: `the skill ${name} can no longer be read (${read._tag === "Refused" ? read.note : `${skill.file} is missing`})` })
        }
        const text = read.text
        const body = parseFrontMatter(text)?.body ?? text
        return { text: `Skill ${skill.name} (folder ${skill.dir}):\n\n${body.trim()}` }
      })
  })
