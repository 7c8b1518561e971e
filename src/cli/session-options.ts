/** The session flags as @effect/cli options, built from the shared table in flags.ts. */
import * as Options from "@effect/cli/Options"
import * as Option from "effect/Option"
import type { ApprovalMode } from "../approval/policy.ts"
import type { Mode } from "../session/document.ts"
import { sessionFlagSpecs as spec, type SessionFlags } from "./flags.ts"

export const sessionOptions = {
  model: Options.text(spec.model.name).pipe(Options.withDescription(spec.model.description), Options.optional),
  mode: Options.choice(spec.mode.name, spec.mode.choices).pipe(Options.withDescription(spec.mode.description), Options.optional),
  approval: Options.choice(spec.approval.name, spec.approval.choices).pipe(
    Options.withDescription(spec.approval.description),
    Options.optional
  ),
  disableTool: Options.text(spec.disableTool.name).pipe(Options.withDescription(spec.disableTool.description), Options.repeated),
  promptSet: Options.text(spec.promptSet.name).pipe(Options.withDescription(spec.promptSet.description), Options.optional),
  promptAttachments: Options.choice(spec.promptAttachments.name, spec.promptAttachments.choices).pipe(
    Options.withDescription(spec.promptAttachments.description),
    Options.withDefault("on" as const)
  ),
  promptAttachment: Options.text(spec.promptAttachment.name).pipe(
    Options.withDescription(spec.promptAttachment.description),
    Options.repeated
  ),
  format: Options.choice(spec.format.name, spec.format.choices).pipe(
    Options.withDescription(spec.format.description),
    Options.withDefault("text" as const)
  ),
  image: Options.text(spec.image.name).pipe(Options.withDescription(spec.image.description), Options.repeated),
  plan: Options.text(spec.plan.name).pipe(Options.withDescription(spec.plan.description), Options.optional),
  outputSchema: Options.text(spec.outputSchema.name).pipe(Options.withDescription(spec.outputSchema.description), Options.optional),
  resume: Options.text(spec.resume.name).pipe(Options.withDescription(spec.resume.description), Options.optional),
  continue: Options.boolean(spec.continue.name).pipe(Options.withDescription(spec.continue.description)),
  trustProjectTools: Options.boolean(spec.trustProjectTools.name).pipe(Options.withDescription(spec.trustProjectTools.description))
}

export interface ParsedSessionOptions {
  readonly model: Option.Option<string>
  readonly mode: Option.Option<Mode>
  readonly approval: Option.Option<ApprovalMode>
  readonly disableTool: ReadonlyArray<string>
  readonly promptSet: Option.Option<string>
  readonly promptAttachments: "on" | "off"
  readonly promptAttachment: ReadonlyArray<string>
  readonly format: "text" | "json"
  readonly image: ReadonlyArray<string>
  readonly plan: Option.Option<string>
  readonly outputSchema: Option.Option<string>
  readonly resume: Option.Option<string>
  readonly continue: boolean
  readonly trustProjectTools: boolean
}

export const toSessionFlags = (parsed: ParsedSessionOptions): SessionFlags => ({
  model: Option.getOrUndefined(parsed.model),
  mode: Option.getOrUndefined(parsed.mode),
  approval: Option.getOrUndefined(parsed.approval),
  disableTool: parsed.disableTool,
  promptSet: Option.getOrUndefined(parsed.promptSet),
  promptAttachments: parsed.promptAttachments,
  promptAttachment: parsed.promptAttachment,
  format: parsed.format,
  image: parsed.image,
  plan: Option.getOrUndefined(parsed.plan),
  outputSchema: Option.getOrUndefined(parsed.outputSchema),
  resume: Option.getOrUndefined(parsed.resume),
  continue: parsed.continue,
  trustProjectTools: parsed.trustProjectTools
})
