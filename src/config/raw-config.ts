/**
 * config.json as written, for what runs before the runtime loads (src/cli/early-start.ts): the
 * early MCP start and the early connection read it once. Not validated: the session reads and
 * checks the file as usual and refuses what is wrong.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { resolveHome } from "./paths.ts"

export type RawConfig = Record<string, unknown>

export const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value)

/** The file's object, {} when there is none; undefined when it cannot be read as a JSON object. */
export const readRawConfig = (env: Readonly<Record<string, string | undefined>>): RawConfig | undefined => {
  try {
    const parsed: unknown = JSON.parse(fs.readFileSync(path.join(resolveHome(env as NodeJS.ProcessEnv), "config.json"), "utf8"))
    return isRecord(parsed) ? parsed : undefined
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "ENOENT" ? {} : undefined
  }
}
