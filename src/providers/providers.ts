/**
 * The Providers service: which model the next request goes to, and how a "provider/model" the
 * operator names becomes a client (model resolution, credentials, client construction). /model
 * replaces the active model between turns: the transcript stays, and each adapter drops what the
 * new provider cannot take (another provider's reasoning state) by the replay rules written at the
 * top of its encode module.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { ConfigError, type NoModelConfigured } from "../config/errors.ts"
import type { Config } from "../config/schema.ts"
import { checkBaseURL } from "./base-url.ts"
import { checkCredentials, resolveModel, type ModelEntry } from "./catalog.ts"
import type { ModelClientShape } from "./model-client.ts"
import { makeModelClient } from "./registry.ts"
import { priceLookup, type PriceLookup } from "./pricing.ts"

export interface ActiveModel {
  readonly entry: ModelEntry
  readonly client: ModelClientShape
}

export interface ProvidersShape {
  /** The model the next request goes to; read at each request, so a switch applies to the next one. */
  readonly current: () => ActiveModel
  /** Resolves `ref` (named by `source`, e.g. "/model"), checks its credentials, builds its client and makes it current. */
  readonly switchTo: (ref: string, source: string) => Effect.Effect<ModelEntry, ConfigError | NoModelConfigured>
  /** What a "provider/model" costs: config.json's `pricing`, else the built-in table; undefined when neither knows. */
  readonly price: PriceLookup
}

export interface ProvidersOptions {
  readonly config: Config
  readonly configFile: string
  /** The environment the host was started with: API keys are read from it when a client is made. */
  readonly env: Readonly<Record<string, string | undefined>>
  /** The model the session starts with, already resolved and checked. */
  readonly initial: ModelEntry
}

/** Holds the active model; `resolve` turns a reference into a ready client. */
const holding = (
  initial: ActiveModel,
  resolve: (ref: string, source: string) => Effect.Effect<ActiveModel, ConfigError | NoModelConfigured>,
  price: PriceLookup
): ProvidersShape => {
  let active = initial
  return {
    price,
    current: () => active,
    switchTo: Effect.fn("Providers.switchTo")(function* (ref: string, source: string) {
      active = yield* resolve(ref, source)
      return active.entry
    })
  }
}

export class Providers extends Context.Tag("crystal/Providers")<Providers, ProvidersShape>() {
  /** The live service: the initial model's client is built now, others on a switch. */
  static readonly make = (options: ProvidersOptions): Effect.Effect<ProvidersShape> =>
    Effect.map(makeModelClient(options.initial, options.env), (client) =>
      holding({ entry: options.initial, client }, (ref, source) =>
        resolveModel({ requested: { ref, source }, config: options.config, configFile: options.configFile, env: options.env }).pipe(
          Effect.flatMap((entry) => checkCredentials(entry, options.env)),
          Effect.flatMap((entry) => checkBaseURL(entry, options.config, options.env)),
          Effect.flatMap((entry) => Effect.map(makeModelClient(entry, options.env), (client) => ({ entry, client })))
        ),
        priceLookup(options.config.pricing)
      )
    )

  static readonly layer = (options: ProvidersOptions): Layer.Layer<Providers> => Layer.effect(Providers, Providers.make(options))

  /**
   * Models given as they are (a client of a test server, say): the first is active, and a switch
   * picks another by its "provider/model" reference.
   */
  static readonly fixed = (models: readonly [ActiveModel, ...ReadonlyArray<ActiveModel>]): ProvidersShape =>
    holding(
      models[0],
      (ref, source) => {
        const found = models.find((model) => model.entry.ref === ref)
        return found === undefined
          ? Effect.fail(new ConfigError({ message: `${source}: unknown model '${ref}' (known: ${models.map((model) => model.entry.ref).join(", ")})` }))
          : Effect.succeed(found)
      },
      priceLookup(undefined)
    )

  static readonly layerTest = (models: readonly [ActiveModel, ...ReadonlyArray<ActiveModel>]): Layer.Layer<Providers> =>
    Layer.sync(Providers, () => Providers.fixed(models))
}
