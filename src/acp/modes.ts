/**
 * Crystal's modes as ACP session modes: Plan (read-only, the model drafts a plan) and Work under
 * each approval mode. One list, so an editor's mode picker shows both choices a person makes.
 */
import type { SessionModeState } from "@agentclientprotocol/sdk"
import { approvalModeMeanings, approvalModes, type ApprovalMode } from "../approval/policy.ts"
import type { Mode, SessionDocument } from "../session/document.ts"

const workApprovals = approvalModes.filter((mode): mode is Exclude<ApprovalMode, "plan"> => mode !== "plan")

export const planModeId = "plan"

export const availableModes: SessionModeState["availableModes"] = [
  { id: planModeId, name: "Plan", description: "Read-only: explore and write a plan; nothing changes" },
  ...workApprovals.map((approval) => ({ id: approval, name: `Work (${approval})`, description: approvalModeMeanings[approval] }))
]

export const currentModeId = (doc: Pick<SessionDocument, "mode" | "approval">): string =>
  doc.mode === "plan" || doc.approval === "plan" ? planModeId : doc.approval

export const sessionModes = (doc: Pick<SessionDocument, "mode" | "approval">): SessionModeState => ({
  currentModeId: currentModeId(doc),
  availableModes: [...availableModes]
})

/** What a mode id sets, or undefined for an id this agent never offered. */
export const modeSettings = (id: string): { readonly mode: Mode; readonly approval?: ApprovalMode } | undefined => {
  if (id === planModeId) return { mode: "plan" }
  const approval = workApprovals.find((candidate) => candidate === id)
  return approval === undefined ? undefined : { mode: "work", approval }
}
