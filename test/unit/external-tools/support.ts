/** Real tool sets on disk, loaded the way a session loads them. */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { makePathFence } from "../../../src/approval/path-fence.ts"
import type { ApprovalMode } from "../../../src/approval/policy.ts"
import { makeExternalTools, type ExternalToolsControl } from "../../../src/external-tools/session-tools.ts"
import { reservedToolNames } from "../../../src/tools/tool-names.ts"
import type { Tool, ToolContext, ToolOutput } from "../../../src/tools/tool.ts"
import { tempDir } from "../../support/temp.ts"
import { noSecrets, Secrets } from "../../../src/secrets/secrets.ts"

export interface Place {
  readonly home: string
  readonly workspace: string
}

export const makePlace = async (): Promise<Place> => {
  const root = await tempDir("crystal-xt-")
  const home = path.join(root, "home")
  const workspace = path.join(root, "workspace")
  await fs.mkdir(home)
  await fs.mkdir(workspace)
  return { home, workspace }
}

export const writeSet = async (place: Place, source: "home" | "project", name: string, files: Record<string, string | object>): Promise<string> => {
  const dir = source === "home" ? path.join(place.home, "tools", name) : path.join(place.workspace, ".crystal", "tools", name)
  await fs.mkdir(dir, { recursive: true })
  for (const [file, content] of Object.entries(files)) {
    await fs.mkdir(path.dirname(path.join(dir, file)), { recursive: true })
    await fs.writeFile(path.join(dir, file), typeof content === "string" ? content : JSON.stringify(content, null, 2), { mode: file.endsWith(".sh") ? 0o755 : 0o644 })
  }
  return dir
}

export interface LoadOptions {
  readonly answer?: boolean
  readonly assumeTrust?: boolean
  readonly enabled?: boolean
  readonly approval?: ApprovalMode
  readonly questions?: Array<string>
  /** The session's secrets (none by default). */
  readonly secrets?: ReadonlyArray<string>
}

export const load = (place: Place, options: LoadOptions = {}): Promise<ExternalToolsControl> =>
  Effect.runPromise(
    makeExternalTools({
      home: place.home,
      workspace: place.workspace,
      enabled: options.enabled ?? true,
      assumeTrust: options.assumeTrust ?? false,
      asker: {
        confirm: (question, defaultAnswer) =>
          Effect.sync(() => {
            options.questions?.push(question)
            return options.answer ?? defaultAnswer
          })
      },
      reserved: reservedToolNames,
      approval: Effect.succeed(options.approval ?? "default"),
      env: process.env,
      redactor: { secrets: Effect.succeed(new Secrets(options.secrets ?? [])) }
    })
  )

export const contextFor = (place: Place, spilled: Array<string> = []): ToolContext => ({
  fence: makePathFence(place.workspace),
  sessionId: "session-1",
  secrets: noSecrets,
  spill: (_name, text) =>
    Effect.sync(() => {
      spilled.push(text)
      return "/tmp/spilled.txt"
    })
})

export const toolNamed = (control: ExternalToolsControl, name: string): Tool => {
  const tool = control.tools().find((candidate) => candidate.name === name)
  if (tool === undefined) throw new Error(`no tool ${name} (have ${control.tools().map((candidate) => candidate.name).join(", ")})`)
  return tool
}

export const call = (tool: Tool, args: unknown, context: ToolContext): Promise<ToolOutput> =>
  Effect.runPromise(tool.run(args as never, context).pipe(Effect.catchAll((error) => Effect.succeed({ text: `failure: ${error.message}`, isError: true }))))
