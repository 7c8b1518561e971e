import * as fs from "node:fs"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { writeFileAtomic } from "../files/atomic.ts"
import { ConfigError } from "./errors.ts"
import { decodeProblem, parseJsonObject } from "./manifest-reader.ts"
import { Config, configDefaults, legacyKeys } from "./schema.ts"

export interface LoadedConfig {
  readonly file: string
  /** The file's JSON as written, unknown keys included; empty when there is no file. */
  readonly raw: Readonly<Record<string, unknown>>
  readonly config: Config
}

const decodeConfig = Schema.decodeUnknownEither(Config, { errors: "all" })

export const parseConfigText = (file: string, text: string): Either.Either<LoadedConfig, ConfigError> => {
  const parsed = parseJsonObject(text)
  if (parsed._tag === "Problem") {
    return Either.left(new ConfigError({ message: `${file}: ${parsed.problem}${parsed.reason === "depth" ? "; not a Crystal config" : ""}` }))
  }
  const raw = parsed.raw
  return decodeConfig(raw).pipe(
    Either.map((config): LoadedConfig => ({ file, raw, config })),
    Either.mapLeft((error) => new ConfigError({ message: `${file}: ${decodeProblem(error)}` }))
  )
}

/** Reads and validates config.json. A missing file is an empty config; a broken one is an error, never rewritten. */
/** Read synchronously: it is small, and start-up has nothing else to do meanwhile. */
export const loadConfig = (file: string): Effect.Effect<LoadedConfig, ConfigError> =>
  Effect.try({
    try: () => fs.readFileSync(file, "utf8"),
    catch: (error) => error as NodeJS.ErrnoException
  }).pipe(
    Effect.map((text): Either.Either<LoadedConfig, ConfigError> => parseConfigText(file, text)),
    Effect.catchAll((error) =>
      Effect.succeed(
        error.code === "ENOENT"
          ? Either.right<LoadedConfig>({ file, raw: {}, config: {} })
          : Either.left(new ConfigError({ message: `${file}: cannot read (${error.code ?? error.message})` }))
      )
    ),
    Effect.flatMap((result) => result)
  )

const isDefault = (key: string, value: unknown): boolean =>
  key in configDefaults && configDefaults[key as keyof typeof configDefaults] === value

/**
 * The JSON a save writes: the file's own keys (unknown ones included) with `changes` applied;
 * a change to `undefined` removes the key; defaults and legacy keys are omitted.
 */
export const mergeForSave = (
  raw: Readonly<Record<string, unknown>>,
  changes: { readonly [K in keyof Config]?: Config[K] | undefined }
): Record<string, unknown> => {
  const next: Record<string, unknown> = { ...raw, ...changes }
  for (const key of Object.keys(next)) {
    if (next[key] === undefined || isDefault(key, next[key]) || (legacyKeys as ReadonlyArray<string>).includes(key)) {
      delete next[key]
    }
  }
  return next
}

export const saveConfig = (
  loaded: LoadedConfig,
  changes: { readonly [K in keyof Config]?: Config[K] | undefined }
): Effect.Effect<LoadedConfig, ConfigError> =>
  Effect.gen(function* () {
    const next = mergeForSave(loaded.raw, changes)
    const text = `${JSON.stringify(next, null, 2)}\n`
    const reparsed = parseConfigText(loaded.file, text)
    if (Either.isLeft(reparsed)) return yield* reparsed.left
    yield* Effect.tryPromise({
      try: () => writeFileAtomic(loaded.file, text, { mode: 0o600 }),
      catch: (error) => new ConfigError({ message: `${loaded.file}: cannot save (${String(error)})` })
    })
    return reparsed.right
  })
