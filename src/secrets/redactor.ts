/**
 * The Redactor service: one session's secrets, in a Ref. The session makes it with the values it
 * knows as it starts (usually a function, called on the first read, so start-up does not pay for
 * scanning the environment); an MCP server's `${env:…}` credentials are added once its entry is
 * expanded. Everything in the session redacts with it: the executor on every tool output, each
 * shell command's output stream from the secrets read when it is spawned (redact.ts), MCP servers
 * and tool sets on what they say of themselves. Code outside a session (`crystal mcp show`) makes
 * its own from the same inputs.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Ref from "effect/Ref"
import { redactText } from "./redact.ts"
import { Secrets } from "./secrets.ts"

/** The values, or a function giving them on the first read. */
export type SecretSource = Iterable<string> | (() => Iterable<string>)

type State = { readonly _tag: "known"; readonly secrets: Secrets } | { readonly _tag: "deferred"; readonly values: () => Iterable<string> }

export interface RedactorShape {
  /** The secrets now; a deferred list is computed by the first read and kept. */
  readonly secrets: Effect.Effect<Secrets>
  /** Adds values to the known ones (a deferred list stays deferred): every read after this sees them. */
  readonly add: (values: Iterable<string>) => Effect.Effect<void>
  /** `text` with the secrets now known replaced (redact.ts's redactText). */
  readonly redact: (text: string) => Effect.Effect<string>
}

const stateOf = (source: SecretSource): State =>
  typeof source === "function" ? { _tag: "deferred", values: source } : { _tag: "known", secrets: new Secrets(source) }

export class Redactor extends Context.Tag("crystal/Redactor")<Redactor, RedactorShape>() {
  static readonly make = (source: SecretSource): Effect.Effect<RedactorShape> =>
    Effect.map(Ref.make(stateOf(source)), (ref): RedactorShape => {
      const secrets = Ref.modify(ref, (state): [Secrets, State] => {
        if (state._tag === "known") return [state.secrets, state]
        const known = new Secrets(state.values())
        return [known, { _tag: "known", secrets: known }]
      })
      return {
        secrets,
        add: Effect.fn("Redactor.add")(function* (values: Iterable<string>) {
          const more = [...values].filter((value) => value.length > 0)
          if (more.length === 0) return
          yield* Ref.update(ref, (state): State => {
            if (state._tag === "known") return { _tag: "known", secrets: state.secrets.with(more) }
            const earlier = state.values
            return { _tag: "deferred", values: () => [...earlier(), ...more] }
          })
        }),
        // Not an Effect.fn: it runs on every tool result, and a span costs ~12 µs a call (measured,
        // scripts/bench/redact.ts), several times the redaction of a typical result.
        redact: (text: string) => Effect.map(secrets, (known) => redactText(known, text))
      }
    })

  static readonly layer = (source: SecretSource): Layer.Layer<Redactor> => Layer.effect(Redactor, Redactor.make(source))

  /** For tests: the live service over the given values (none by default). */
  static readonly layerTest = (values: Iterable<string> = []): Layer.Layer<Redactor> => Redactor.layer(values)
}
