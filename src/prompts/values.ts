/**
 * The host's placeholder values (SPEC P2), computed when a system text is composed: {{time}} is
 * the local time at that moment, and every value reflects the session as it is then.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { approvalModeMeanings, type ApprovalMode } from "../approval/policy.ts"
import type { AccessGrant, Mode } from "../session/document.ts"
import type { InstructionFile } from "./instructions.ts"
import { localFields } from "./local-clock.ts"
import type { PlaceholderValues } from "./placeholders.ts"

export interface SessionFacts {
  readonly workspace: string
  readonly mode: Mode
  readonly approval: ApprovalMode
  /** "provider/model" */
  readonly model: string
  readonly sessionId: string
  readonly disabledTools: ReadonlyArray<string>
  readonly access: ReadonlyArray<AccessGrant>
  readonly instructions: ReadonlyArray<InstructionFile>
  /** The {{skills}} listing, "" when there are none. */
  readonly skills: string
  readonly now: Date
}

const pad = (value: number): string => String(value).padStart(2, "0")

const dateOf = (shifted: Date): string => `${shifted.getUTCFullYear()}-${pad(shifted.getUTCMonth() + 1)}-${pad(shifted.getUTCDate())}`

/** Local time with a numeric offset: 2026-11-30T14:05:09+01:00 (local-clock.ts says why not Date's local fields). */
export const localTime = (now: Date): string => {
  const { shifted, offsetMinutes: offset } = localFields(now)
  const sign = offset >= 0 ? "+" : "-"
  const hours = pad(Math.floor(Math.abs(offset) / 60))
  const minutes = pad(Math.abs(offset) % 60)
  return `${dateOf(shifted)}T${pad(shifted.getUTCHours())}:${pad(shifted.getUTCMinutes())}:${pad(shifted.getUTCSeconds())}${sign}${hours}:${minutes}`
}

export const localDate = (now: Date): string => dateOf(localFields(now).shifted)

const osNames: Readonly<Record<string, string>> = { darwin: "macOS", linux: "Linux", win32: "Windows", freebsd: "FreeBSD" }

/** Operating system name and version, e.g. "Linux 6.1.0". */
export const osDescription = (): string => `${osNames[process.platform] ?? process.platform} ${os.release()}`

const hasGitEntry = (dir: string): boolean => fs.existsSync(path.join(dir, ".git"))

/** The repository root found by walking up from the workspace, or "". */
export const gitRoot = (workspace: string): string => {
  for (let dir = workspace; ; dir = path.dirname(dir)) {
    if (hasGitEntry(dir)) return dir
    if (path.dirname(dir) === dir) return ""
  }
}

const section = (title: string, body: string): string => (body === "" ? "" : `\n\n# ${title}\n${body}`)

export const directoriesText = (access: ReadonlyArray<AccessGrant>): string =>
  access.map((grant) => `- ${grant.dir}: ${grant.access === "write" ? "read and write" : "read only"}`).join("\n")

export const instructionsText = (files: ReadonlyArray<InstructionFile>): string =>
  files.map((file) => (files.length === 1 ? file.text : `From ${file.name}:\n${file.text}`)).join("\n\n")

/** Every host slot, atomic and composite, for one composition. */
export const hostValues = (facts: SessionFacts): PlaceholderValues => {
  const [provider = "", ...rest] = facts.model.split("/")
  const modelId = rest.join("/")
  const isGitRepo = hasGitEntry(facts.workspace)
  const root = gitRoot(facts.workspace)
  const time = localTime(facts.now)
  const directories = directoriesText(facts.access)
  const instructions = instructionsText(facts.instructions)
  const directoriesSection = section("Directories granted for this session", directories)
  const env = [
    "# Environment",
    `- Workspace: ${facts.workspace}${isGitRepo ? " (a git repository)" : root !== "" ? ` (inside the git repository at ${root})` : ""}`,
    `- Platform: ${osDescription()}, ${process.arch}`,
    `- Local time: ${time}`,
    `- Model: ${facts.model}`,
    `- Session: ${facts.sessionId}`,
    `- Approval mode: ${facts.approval} (${approvalModeMeanings[facts.approval]})`,
    ...(facts.disabledTools.length > 0 ? [`- Tools the operator disabled (do not call them): ${facts.disabledTools.join(", ")}`] : [])
  ].join("\n")
  return new Map<string, string>([
    ["env", env],
    ["skills", facts.skills === "" ? "" : `\n\n# Skills\n${facts.skills}`],
    ["directories", directories],
    ["instructions", instructions],
    ["instructions_section", `${section("Workspace instructions", instructions)}${directoriesSection}`],
    ["workspace", facts.workspace],
    ["is_git_repo", isGitRepo ? "yes" : "no"],
    ["git_root", root],
    ["platform", process.platform],
    ["os", osDescription()],
    ["architecture", process.arch],
    ["date", localDate(facts.now)],
    ["time", time],
    ["provider", provider],
    ["model", modelId],
    ["model_line", `Model: ${facts.model}`],
    ["mode", facts.mode],
    ["product_name", "Crystal"],
    ["session_id", facts.sessionId],
    ["approval", facts.approval]
  ])
}
