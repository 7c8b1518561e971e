/**
 * The PlanFile service: the session's one plan file (docs/plans.md). Its path is fixed when the
 * session starts (location.ts); the model never names it. Reads take it only as a regular file
 * inside its root (no link, FIFO or device); writes replace it whole, atomically, through
 * src/files/confined-write.ts, with the session's secrets redacted first, like every file the
 * session writes of itself.
 */
import * as fs from "node:fs"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Ref from "effect/Ref"
import * as Schema from "effect/Schema"
import { readConfined, type ConfinedRoot } from "../files/confined-read.ts"
import { writeConfined } from "../files/confined-write.ts"
import { codeOf } from "../text/error-text.ts"
import { formatBytes } from "../text/bytes.ts"
import type { PlanLocation } from "./location.ts"
import type { ProposedPlan } from "./proposal.ts"

/** A plan is prose for a person to read and approve; anything larger is not one. */
export const maxPlanBytes = 256 * 1024

export class PlanFileError extends Schema.TaggedError<PlanFileError>()("PlanFileError", {
  message: Schema.String
}) {}

export type PlanRead =
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Read"; readonly text: string }
  /** `reason` follows the path: "… is a symbolic link; it was not read". */
  | { readonly _tag: "Refused"; readonly reason: string }

export interface PlanFileShape {
  readonly path: string
  readonly read: Effect.Effect<PlanRead>
  /** `read`, for a caller outside Effect (the plan dialog, right after the editor exits). */
  readonly readNow: () => PlanRead
  /** Replaces the plan with `text` (redacted of the session's secrets); the message says why it could not. */
  readonly write: (text: string) => Effect.Effect<void, PlanFileError>
  /** The operator chose "Start working on it": kept until the terminal takes it to start the Work turn. */
  readonly approve: (plan: ProposedPlan) => Effect.Effect<void>
  /** The plan approved since the last take, if any (cleared by taking it). */
  readonly takeApproved: Effect.Effect<ProposedPlan | undefined>
}

export interface PlanFileOptions {
  readonly location: PlanLocation
  /** The session's redaction (its Redactor's `redact`). */
  readonly redact: (text: string) => Effect.Effect<string>
}

const readPlan = (location: PlanLocation): PlanRead => {
  const root: ConfinedRoot = { dir: location.root, label: location.rootLabel }
  try {
    // readConfined follows a link that stays inside its root; the plan file is never a link at all.
    if (fs.lstatSync(location.file).isSymbolicLink()) return { _tag: "Refused", reason: `${location.file} is a symbolic link; it was not read` }
  } catch (error) {
    const code = codeOf(error)
    if (code === "ENOENT" || code === "ENOTDIR") return { _tag: "Missing" }
    return { _tag: "Refused", reason: `${location.file} cannot be read (${code})` }
  }
  const read = readConfined(root, location.file, maxPlanBytes)
  switch (read._tag) {
    case "Read":
      return { _tag: "Read", text: read.text }
    case "Missing":
      return { _tag: "Missing" }
    case "Refused":
      return { _tag: "Refused", reason: read.note }
  }
}

export class PlanFile extends Context.Tag("crystal/PlanFile")<PlanFile, PlanFileShape>() {
  static readonly make = (options: PlanFileOptions): Effect.Effect<PlanFileShape> =>
    Effect.map(Ref.make<ProposedPlan | undefined>(undefined), (approved) => {
      const { location } = options
      return {
        path: location.file,
        read: Effect.sync(() => readPlan(location)),
        readNow: () => readPlan(location),
        write: (text) =>
          Effect.gen(function* () {
            const bytes = Buffer.byteLength(text, "utf8")
            if (bytes > maxPlanBytes) return yield* new PlanFileError({ message: `the plan is larger than ${formatBytes(maxPlanBytes)} (${bytes} bytes); a plan is prose for a person to approve: keep it shorter` })
            const redacted = yield* options.redact(text)
            const written = writeConfined(location, redacted, location.private ? 0o600 : 0o644)
            if (written._tag === "Refused") {
              const where = location.rootLabel === "the workspace" ? " (plans.directory in config.json: every folder on the way must be a real folder inside the workspace)" : ""
              return yield* new PlanFileError({ message: `the plan file was not written: ${written.reason}${where}` })
            }
          }),
        approve: (plan) => Ref.set(approved, plan),
        takeApproved: Ref.getAndSet(approved, undefined)
      } satisfies PlanFileShape
    })
}
