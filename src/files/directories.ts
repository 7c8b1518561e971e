/** Directories named by the operator: resolved the way a shell in the workspace would, then checked. */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { messageOf } from "../text/error-text.ts"

/** A directory the operator named that does not exist or cannot be entered (exit code 2 at start-up). */
export class DirectoryError extends Schema.TaggedError<DirectoryError>()("DirectoryError", {
  message: Schema.String
}) {}

/** `dir` as typed in a session (/cd, /space, /access): relative to the workspace, `~` for the home directory. */
export const typedPath = (workspace: string, dir: string): string => path.resolve(workspace, dir.trim().replace(/^~(?=$|\/)/, os.homedir()))

/** The real path of an existing directory, or a DirectoryError naming `what` and why. */
export const realDirectory = (dir: string, what: string) =>
  Effect.try({
    try: () => {
      const real = fs.realpathSync(dir)
      if (!fs.statSync(real).isDirectory()) throw new Error("not a directory")
      return real
    },
    catch: (error) => new DirectoryError({ message: `${what} ${dir} is not an accessible directory (${messageOf(error)})` })
  })
