/**
 * The PromptResolver service: every text the session sends as instructions, composed from the
 * named prompts (built-in < home < workspace, or the enabled prompt set), the enabled attachments
 * and the placeholders (host values, then plugin registrations). Work and Plan hear the
 * workspace's instructions and skills; side requests (reviewer, compaction, title) never do, and
 * the reviewer hears nothing the workspace supplies at all (SPEC A3, P-series).
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { CrystalPaths } from "../config/paths.ts"
import type { SessionDocument } from "../session/document.ts"
import { skillsListing } from "../skills/discover.ts"
import type { Skill } from "../skills/discover.ts"
import { composePrompt, joinParts } from "./compose.ts"
import { readInstructions, type InstructionFile } from "./instructions.ts"
import { makePlaceholderRegistry, type PlaceholderRegistry } from "./placeholder-registry.ts"
import { bindPlaceholders, type PlaceholderValues } from "./placeholders.ts"
import { resolvePrompt } from "./resolver.ts"
import { noPromptSelection, promptSources, type PromptSelection } from "./selection.ts"
import type { PromptHooks } from "./prompt-hooks.ts"
import { hostValues } from "./values.ts"

/**
 * The texts of one side request, read once per request: the system text as composed now, the
 * user template (its slots are bound by the caller) and the host values bound in the same pass.
 */
export interface SidePrompts {
  readonly system: string
  readonly userTemplate: string
  readonly hostValues?: PlaceholderValues | undefined
}

export interface PromptResolverShape {
  /** The Work or Plan system text for `doc` as the prompt files are now. */
  readonly compose: (doc: SessionDocument) => Effect.Effect<string>
  /** What the operator should know from the latest composition (a skipped prompt set, say). */
  readonly notes: () => ReadonlyArray<string>
  readonly review: (doc: SessionDocument) => Effect.Effect<SidePrompts>
  readonly compaction: (doc: SessionDocument) => Effect.Effect<SidePrompts>
  /** describe_image's texts: image.system bound now, image.user's {{question}} bound by the tool. */
  readonly image: (doc: SessionDocument) => Effect.Effect<SidePrompts>
  /** The title request's template (its {{conversation}} is bound by the titler) and host values. */
  readonly topic: (doc: SessionDocument) => Effect.Effect<SidePrompts>
  /** The placeholder values a Work or Plan text would get now (a file command's prompt binds them). */
  readonly values: (doc: SessionDocument) => Effect.Effect<PlaceholderValues>
  /** Where plugins register their placeholders; read at every composition. */
  readonly placeholders: PlaceholderRegistry
  /** Where prompt sets and attachments live, and what the prompt flags of this process force. */
  readonly paths: CrystalPaths
  readonly selection: PromptSelection
}

export interface PromptResolverOptions {
  readonly paths: CrystalPaths
  readonly selection: PromptSelection
  readonly skills: ReadonlyArray<Skill>
  readonly disabledTools: ReadonlyArray<string>
  /** Plugin appends, rewrites and placeholder values; absent when no plugin has any. */
  readonly hooks?: PromptHooks | undefined
}

export class PromptResolver extends Context.Tag("crystal/PromptResolver")<PromptResolver, PromptResolverShape>() {
  static readonly make = (options: PromptResolverOptions): PromptResolverShape => {
    const placeholders = makePlaceholderRegistry()
    const sources = () => promptSources(options.paths, options.selection)
    let notes: ReadonlyArray<string> = []
    const hooks = options.hooks

    /** SPEC P8's last two steps: plugin onPrompt appends, then a raw rewritePrompt of the whole text. */
    const withPlugins = (mode: "work" | "plan" | "review", text: string): Effect.Effect<string> =>
      hooks === undefined
        ? Effect.succeed(text)
        : Effect.gen(function* () {
            const appends = yield* hooks.promptAppends(mode)
            return yield* hooks.rewritePrompt(mode, joinParts([text, ...appends]))
          })

    /** Host values for `doc`; a side request gets no workspace instructions or skills, and its own {{mode}}. */
    const valuesFor = (doc: SessionDocument, side?: "review" | "compaction" | "topic" | "image", instructions: ReadonlyArray<InstructionFile> = []) => {
      const values = hostValues({
        workspace: doc.workspace,
        mode: doc.mode,
        approval: doc.approval,
        model: doc.model,
        sessionId: doc.id,
        disabledTools: options.disabledTools,
        access: doc.access ?? [],
        instructions: side === undefined ? instructions : [],
        skills: side === undefined ? skillsListing(options.skills) : "",
        now: new Date()
      })
      const bound = side === "review" || side === "compaction" ? new Map([...values, ["mode", side]]) : values
      return placeholders.withHostValues(bound)
    }

    return {
      compose: Effect.fn("PromptResolver.compose")(function* (doc: SessionDocument) {
        const { locations, attachments, notes: found } = sources()
        if (hooks !== undefined) yield* hooks.refreshPlaceholders
        const instructions = readInstructions(doc.workspace)
        const composed = composePrompt(doc.mode, valuesFor(doc, undefined, instructions.files), locations, attachments)
        notes = [...found, ...instructions.notes, ...composed.notes]
        return yield* withPlugins(doc.mode, composed.text)
      }),
      notes: () => notes,
      values: Effect.fn("PromptResolver.values")(function* (doc: SessionDocument) {
        if (hooks !== undefined) yield* hooks.refreshPlaceholders
        return valuesFor(doc, undefined, readInstructions(doc.workspace).files)
      }),
      review: Effect.fn("PromptResolver.review")(function* (doc: SessionDocument) {
        const { locations, attachments } = sources().reviewer
        if (hooks !== undefined) yield* hooks.refreshPlaceholders
        const values = valuesFor(doc, "review")
        return {
          system: yield* withPlugins("review", composePrompt("review", values, locations, attachments).text),
          userTemplate: resolvePrompt("review.user", locations).text,
          hostValues: values
        }
      }),
      compaction: Effect.fn("PromptResolver.compaction")(function* (doc: SessionDocument) {
        const { locations } = sources()
        if (hooks !== undefined) yield* hooks.refreshPlaceholders
        const values = valuesFor(doc, "compaction")
        const system = bindPlaceholders(resolvePrompt("compaction.system", locations).text, values)
        return {
          system: hooks === undefined ? system : yield* hooks.rewritePrompt("compaction", system),
          userTemplate: resolvePrompt("compaction.user", locations).text,
          hostValues: values
        }
      }),
      image: Effect.fn("PromptResolver.image")(function* (doc: SessionDocument) {
        const { locations } = sources()
        const values = valuesFor(doc, "image")
        return {
          system: bindPlaceholders(resolvePrompt("image.system", locations).text, values),
          userTemplate: resolvePrompt("image.user", locations).text,
          hostValues: values
        }
      }),
      topic: Effect.fn("PromptResolver.topic")(function* (doc: SessionDocument) {
        return { system: "", userTemplate: resolvePrompt("topic", sources().locations).text, hostValues: valuesFor(doc, "topic") }
      }),
      placeholders,
      paths: options.paths,
      selection: options.selection
    }
  }

  static readonly layer = (options: PromptResolverOptions): Layer.Layer<PromptResolver> => Layer.sync(PromptResolver, () => PromptResolver.make(options))

  /** For tests: the live composition over the prompt files under `paths`, no flags, no skills. */
  static readonly layerTest = (paths: CrystalPaths): Layer.Layer<PromptResolver> =>
    PromptResolver.layer({ paths, selection: noPromptSelection, skills: [], disabledTools: [] })
}
