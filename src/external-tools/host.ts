/**
 * What every external tool gets from the session (SPEC X2, X3, X4): the workspace, the current
 * approval mode, the set's data folders, the environment its programs start with, and the
 * session's choice of whose approval word counts for each source (`/tools home|project author|host`).
 */
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import type { ApprovalMode } from "../approval/policy.ts"
import type { ToolSource } from "./discover.ts"

export type ApprovalAuthority = "author" | "host"

export const defaultApprovalAuthority: Readonly<Record<ToolSource, ApprovalAuthority>> = { home: "author", project: "host" }

export interface ExternalToolHost {
  readonly home: string
  readonly workspace: string
  readonly approval: Effect.Effect<ApprovalMode>
  /** The environment programs start with (the shell's: provider keys already removed). */
  readonly env: NodeJS.ProcessEnv
  readonly approvalAuthority: (source: ToolSource) => ApprovalAuthority
}

/** `~/.crystal/tool-data/<set>/` and `<workspace>/.crystal/tool-data/<set>/`, created on first use. */
export const dataDirs = (host: Pick<ExternalToolHost, "home" | "workspace">, set: string) => ({
  toolData: path.join(host.home, "tool-data", set),
  projectData: path.join(host.workspace, ".crystal", "tool-data", set)
})

export const ensureDataDirs = (host: Pick<ExternalToolHost, "home" | "workspace">, set: string) =>
  Effect.sync(() => {
    const dirs = dataDirs(host, set)
    fs.mkdirSync(dirs.toolData, { recursive: true, mode: 0o700 })
    fs.mkdirSync(dirs.projectData, { recursive: true })
    return dirs
  })

/** Whether the author's `"approval": "always"` makes this call ask. */
export const authorAsks = (host: ExternalToolHost, source: ToolSource, declaration: "always" | "policy"): boolean =>
  declaration === "always" && host.approvalAuthority(source) === "author"
