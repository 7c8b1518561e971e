/**
 * config.json's `imageModel` (SPEC I7): the model describe_image asks. It is resolved like any
 * model reference and must take images, checked when the session is prepared; its credentials are
 * only checked when describe_image runs, so a missing key never blocks a session from starting.
 */
import * as Either from "effect/Either"
import { ConfigError } from "../config/errors.ts"
import type { Config } from "../config/schema.ts"
import { resolveModel, type ModelEntry } from "./catalog.ts"

type Env = Readonly<Record<string, string | undefined>>

export const resolveImageModel = (config: Config, configFile: string, env: Env): Either.Either<ModelEntry | undefined, ConfigError> => {
  const ref = config.imageModel
  if (ref === undefined) return Either.right(undefined)
  return resolveModel({ requested: { ref, source: `${configFile}: imageModel` }, config, configFile, env }).pipe(
    Either.mapLeft((error) => new ConfigError({ message: error.message })),
    Either.flatMap((entry) =>
      entry.capabilities.imageInput
        ? Either.right(entry)
        : Either.left(
            new ConfigError({
              message: `${configFile}: imageModel: ${entry.ref} does not take images; name an image model, or set "imageInput": true under providers.${entry.provider.name}.models.${entry.id}`
            })
          )
    )
  )
}
