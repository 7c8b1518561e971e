import * as fs from "node:fs/promises"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import { writeFileAtomic } from "../files/atomic.ts"
import { ConfigError } from "./errors.ts"
import { Config, configDefaults, legacyKeys } from "./schema.ts"

export interface LoadedConfig {
  readonly file: string
  /** The file's JSON as written, unknown keys included; empty when there is no file. */
  readonly raw: Readonly<Record<string, unknown>>
  readonly config: Config
}

const decodeConfig = Schema.decodeUnknownEither(Config, { errors: "all" })

export const formatPath = (path: ReadonlyArray<PropertyKey>): string =>
  path.map((key, i) => (typeof key === "number" ? `[${key}]` : i === 0 ? String(key) : `.${String(key)}`)).join("")

/** One line per problem, each naming the field and what was expected. */
export const describeParseError = (error: ParseResult.ParseError): ReadonlyArray<string> =>
  ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) =>
    issue.path.length === 0 ? issue.message : `${formatPath(issue.path)}: ${issue.message}`
  )

const jsonErrorLocation = (text: string, message: string): string => {
  const match = /position (\d+)/.exec(message)
  if (match === null) return ""
  const offset = Number(match[1])
  const before = text.slice(0, offset)
  const line = before.split("\n").length
  const column = offset - before.lastIndexOf("\n")
  return ` at line ${line}, column ${column}`
}

export const parseConfigText = (file: string, text: string): Either.Either<LoadedConfig, ConfigError> => {
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error)
    return Either.left(new ConfigError({ message: `${file}: not valid JSON${jsonErrorLocation(text, message)} (${message})` }))
  }
  if (typeof json !== "object" || json === null || Array.isArray(json)) {
    return Either.left(new ConfigError({ message: `${file}: expected a JSON object at the top level` }))
  }
  return decodeConfig(json).pipe(
    Either.map((config): LoadedConfig => ({ file, raw: json as Record<string, unknown>, config })),
    Either.mapLeft((error) => {
      const problems = describeParseError(error)
      const more = problems.length > 1 ? ` (and ${problems.length - 1} more problem${problems.length > 2 ? "s" : ""})` : ""
      return new ConfigError({ message: `${file}: ${problems[0] ?? "invalid"}${more}` })
    })
  )
}

/** Reads and validates config.json. A missing file is an empty config; a broken one is an error, never rewritten. */
export const loadConfig = (file: string): Effect.Effect<LoadedConfig, ConfigError> =>
  Effect.tryPromise({
    try: () => fs.readFile(file, "utf8"),
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
