/**
 * The JSON Schema `crystal run --output-schema FILE` names, read and compiled before anything is
 * sent: a missing file, a file that is not JSON or not a schema is one line naming the file and
 * the problem. ajv is loaded here only, so runs without the flag never pay for it.
 */
import * as path from "node:path"
import { ConfigError } from "../config/errors.ts"
import { isRecord } from "../config/raw-config.ts"
import { readRegularFile } from "../files/confined-read.ts"
import { oneLine } from "../text/clip.ts"
import { messageOf } from "../text/error-text.ts"
import type { OutputSchema } from "../providers/model-client.ts"
import type { ErrorObject } from "ajv"

/** A schema is settings, not data: 1 MiB is far more than any real one. */
const maxSchemaBytes = 1024 * 1024

/** What the final answer is checked against: the schema as sent to the model, and its validator. */
export interface AnswerSchema extends OutputSchema {
  readonly file: string
  /** The ways `value` breaks the schema, one line each; empty when it is valid. */
  readonly check: (value: unknown) => ReadonlyArray<string>
}

/** The name the schema goes by on the wire (OpenAI's json_schema name, Anthropic's answer tool). */
export const answerSchemaName = "final_answer"

type Draft = "2020-12" | "2019-09" | "draft-07"

/** Each draft's meta-schema URI exactly as ajv registers it: another spelling of it would not compile. */
const metaSchemaUri: Record<Draft, string> = {
  "2020-12": "https://json-schema.org/draft/2020-12/schema",
  "2019-09": "https://json-schema.org/draft/2019-09/schema",
  "draft-07": "http://json-schema.org/draft-07/schema#"
}

/** The draft a schema declares with `$schema` (none: 2020-12), or undefined for one ajv does not take. */
const draftOf = (declared: unknown): Draft | undefined => {
  if (declared === undefined) return "2020-12"
  if (typeof declared !== "string") return undefined
  const uri = declared.replace(/#$/, "").replace(/^http:/, "https:")
  if (uri === "https://json-schema.org/draft/2020-12/schema") return "2020-12"
  if (uri === "https://json-schema.org/draft/2019-09/schema") return "2019-09"
  if (uri === "https://json-schema.org/draft-07/schema") return "draft-07"
  return undefined
}

/**
 * One validation error as one line: where in the answer, and what is wrong there. The path and a
 * property name are the model's own text, printed to stderr: the name is quoted and the whole made
 * one line, so an answer cannot write a line of its own (a fake `crystal:` failure).
 */
export const errorLine = (error: ErrorObject): string => {
  const where = error.instancePath === "" ? "the answer" : error.instancePath
  const extra = error.keyword === "additionalProperties" ? ` (${JSON.stringify(String(error.params["additionalProperty"]))})` : ""
  return oneLine(`${where}: ${error.message ?? error.keyword}${extra}`)
}

const loadAjv = async (draft: Draft) => {
  const options = { allErrors: true, strict: false, validateFormats: false, logger: false } as const
  // Each dist module is CommonJS whose default export is the class.
  if (draft === "2020-12") return new (await import("ajv/dist/2020.js")).default.default(options)
  if (draft === "2019-09") return new (await import("ajv/dist/2019.js")).default.default(options)
  return new (await import("ajv")).default.default(options)
}

export const loadAnswerSchema = async (file: string): Promise<AnswerSchema | ConfigError> => {
  const problem = (text: string) => new ConfigError({ message: `--output-schema: ${file} ${text}` })
  const read = readRegularFile(path.resolve(file), maxSchemaBytes)
  if (read === undefined) return problem("does not exist")
  if ("refused" in read) return problem(read.refused)
  let schema: unknown
  try {
    schema = JSON.parse(read.bytes.toString("utf8"))
  } catch (error) {
    return problem(`is not JSON (${messageOf(error)})`)
  }
  if (!isRecord(schema)) return problem("is not a JSON Schema: expected an object at the top")
  const draft = draftOf(schema["$schema"])
  if (draft === undefined) return problem(`declares $schema ${JSON.stringify(schema["$schema"])}; supported: 2020-12 (the default), 2019-09, draft-07`)
  const ajv = await loadAjv(draft)
  let validate: ReturnType<typeof ajv.compile>
  try {
    // Compiled with the URI ajv knows; the model is sent the schema as the operator wrote it.
    validate = ajv.compile(schema["$schema"] === undefined ? schema : { ...schema, $schema: metaSchemaUri[draft] })
  } catch (error) {
    return problem(`is not a valid JSON Schema (${messageOf(error)})`)
  }
  return {
    file,
    name: answerSchemaName,
    schema,
    check: (value) => (validate(value) ? [] : (validate.errors ?? []).map(errorLine))
  }
}
