/**
 * Where a session's plan file lives (docs/plans.md): `<home>/plans/<session id>.md`, or
 * `<workspace>/<plans.directory>/<session id>.md` when config.json names a folder there. A pure
 * function of the home, the workspace, the setting and the session's id: nothing the model sends
 * takes part in it.
 */
import * as path from "node:path"
import { plansFolders } from "../config/schema.ts"

export interface PlanLocation {
  /** What the plan's folders are made under and may never leave: the Crystal home or the workspace. */
  readonly root: string
  readonly rootLabel: "the Crystal home" | "the workspace"
  /** The folders from the root down to the file's, one name each. */
  readonly folders: ReadonlyArray<string>
  readonly name: string
  /** root, folders and name joined: the path the operator is shown and the file is written at. */
  readonly file: string
  /** Under the home the plan is private (owner-only); in the workspace it is the project's, like any file there. */
  readonly private: boolean
}

export interface PlanLocationInput {
  readonly home: string
  readonly workspace: string
  /** `plans.directory` of config.json: relative to the workspace, checked to stay inside it when config.json was read. */
  readonly directory?: string | undefined
  readonly sessionId: string
}

/** A session id as a file name: the ids Crystal makes pass unchanged; anything else cannot name another folder. */
const fileName = (sessionId: string): string => `${sessionId.replace(/[^A-Za-z0-9_-]/g, "_")}.md`

export const planLocation = (input: PlanLocationInput): PlanLocation => {
  const name = fileName(input.sessionId)
  if (input.directory === undefined) {
    return { root: input.home, rootLabel: "the Crystal home", folders: ["plans"], name, file: path.join(input.home, "plans", name), private: true }
  }
  const folders = plansFolders(input.directory)
  return { root: input.workspace, rootLabel: "the workspace", folders, name, file: path.join(input.workspace, ...folders, name), private: false }
}
