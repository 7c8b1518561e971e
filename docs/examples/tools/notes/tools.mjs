// A module tool set: Crystal imports this file (after the operator trusts it, for a workspace set)
// and offers each entry of `tools`. `classify` may only raise the host's classification.
import { appendFile, mkdir, readFile } from "node:fs/promises"
import { dirname, isAbsolute, join, resolve } from "node:path"

const notesFile = (ctx, file) => (isAbsolute(file) ? file : resolve(ctx.workspace, file))

export const tools = [
  {
    definition: {
      name: "add_note",
      description: "Append a dated note to a notes file (default NOTES.md in the workspace).",
      parameters: {
        type: "object",
        properties: { text: { type: "string", minLength: 1 }, file: { type: "string" } },
        required: ["text"],
        additionalProperties: false
      }
    },
    run: async (args, ctx) => {
      const file = notesFile(ctx, args.file ?? "NOTES.md")
      await mkdir(dirname(file), { recursive: true })
      await appendFile(file, `- ${args.text}\n`)
      const all = await readFile(file, "utf8")
      // The same data folder the exec runner's CRYSTAL_TOOL_DATA names, for this set.
      await mkdir(ctx.toolData, { recursive: true })
      await appendFile(join(ctx.toolData, "log.txt"), `${ctx.sessionId} ${args.text}\n`)
      return { text: `${file} now has ${all.split("\n").filter((line) => line !== "").length} notes` }
    }
  }
]

// The host already treats every call as a workspace write at medium risk. Naming the file lets it
// see a write outside the workspace (which then asks, even in full mode).
export const classify = (name, args) => (name === "add_note" ? { paths: [args.file ?? "NOTES.md"] } : undefined)
