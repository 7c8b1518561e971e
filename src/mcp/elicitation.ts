/**
 * A server's `elicitation/create` (form mode, issue 15 item 6) asked through the Operator's
 * question dialog: one question per simple field of the requested schema (string, number,
 * integer, boolean, a string enum, an array of a string enum), answered by picking an option or
 * typing, each starting on the field's default (SEP-1034: the dialog accepted as offered sends the
 * defaults). Nobody to ask (crystal run), a dismissed dialog, a field Crystal cannot ask, or an
 * answer that is not of the field's type: the request is declined, and the operator gets a note.
 */
import * as Effect from "effect/Effect"
import type { Question, QuestionAnswer, QuestionAsker } from "../tools/questions.ts"
import { clip } from "../text/clip.ts"

export type ElicitAnswer =
  | { readonly action: "accept"; readonly content: Record<string, string | number | boolean | Array<string>> }
  | { readonly action: "decline" }
  | { readonly action: "cancel" }

type FieldKind = "string" | "number" | "integer" | "boolean" | "enum" | "enums"

interface Field {
  readonly name: string
  readonly kind: FieldKind
  readonly required: boolean
  readonly choices: ReadonlyArray<string>
  readonly defaultValue: unknown
  readonly question: Question
}

type Schema = Readonly<Record<string, unknown>>

const stringList = (value: unknown): ReadonlyArray<string> | undefined =>
  Array.isArray(value) && value.every((item) => typeof item === "string") ? value : undefined

const kindOf = (property: Schema): { kind: FieldKind; choices: ReadonlyArray<string> } | undefined => {
  const choices = stringList(property["enum"]) ?? stringList((property["oneOf"] as ReadonlyArray<Schema> | undefined)?.map((option) => option["const"]))
  if (property["type"] === "string") return choices === undefined ? { kind: "string", choices: [] } : { kind: "enum", choices }
  if (property["type"] === "array") {
    const items = (property["items"] ?? {}) as Schema
    const itemChoices = stringList(items["enum"]) ?? stringList((items["anyOf"] as ReadonlyArray<Schema> | undefined)?.map((option) => option["const"]))
    return itemChoices === undefined ? undefined : { kind: "enums", choices: itemChoices }
  }
  if (property["type"] === "number" || property["type"] === "integer" || property["type"] === "boolean") return { kind: property["type"], choices: [] }
  return undefined
}

const serversDefault = "the server's default"

/**
 * The labels a field's question starts on: its schema default (SEP-1034), so that accepting the
 * dialog as offered sends the defaults. A default that is not one of the choices is not offered.
 */
const initialLabels = (kind: FieldKind, choices: ReadonlyArray<string>, defaultValue: unknown): ReadonlyArray<string> => {
  switch (kind) {
    case "boolean":
      return typeof defaultValue === "boolean" ? [defaultValue ? "yes" : "no"] : []
    case "enum":
      return typeof defaultValue === "string" && choices.includes(defaultValue) ? [defaultValue] : []
    case "enums": {
      const values = stringList(defaultValue) ?? []
      return choices.filter((choice) => values.includes(choice))
    }
    case "string":
    case "number":
    case "integer":
      return defaultValue === undefined ? [] : [String(defaultValue)]
  }
}

/** The schema's fields as questions; a string says why the request cannot be asked. */
export const elicitationFields = (server: string, message: string, schema: Schema): ReadonlyArray<Field> | string => {
  const properties = (schema["properties"] ?? {}) as Readonly<Record<string, Schema>>
  const required = new Set(stringList(schema["required"]) ?? [])
  const fields: Array<Field> = []
  for (const [name, property] of Object.entries(properties)) {
    const shape = kindOf(property)
    if (shape === undefined) {
      if (required.has(name)) return `its required field ${name} is of a kind Crystal cannot ask (${String(property["type"])})`
      continue
    }
    const title = typeof property["title"] === "string" ? property["title"] : name
    const description = typeof property["description"] === "string" ? property["description"] : ""
    const defaultValue = property["default"]
    const initial = initialLabels(shape.kind, shape.choices, defaultValue)
    const option = (label: string, description: string) => ({
      label,
      description: initial.includes(label) ? (description === "" ? serversDefault : `${description}, ${serversDefault}`) : description
    })
    const options =
      shape.kind === "boolean"
        ? [option("yes", "true"), option("no", "false")]
        : shape.kind === "enum" || shape.kind === "enums"
          ? shape.choices.map((choice) => option(choice, ""))
          : initial.map((label) => option(label, ""))
    const optional = required.has(name) ? "" : " (optional: dismissing the dialog declines the whole request)"
    fields.push({
      name,
      kind: shape.kind,
      required: required.has(name),
      choices: shape.choices,
      defaultValue,
      question: {
        header: clip(`${server}: ${title}`, 60),
        question: `${fields.length === 0 ? `${message}\n` : ""}${description === "" ? name : description}${shape.kind === "number" ? " (a number)" : shape.kind === "integer" ? " (an integer)" : ""}${optional}`,
        options,
        multiSelect: shape.kind === "enums",
        allowCustom: shape.kind === "string" || shape.kind === "number" || shape.kind === "integer",
        initial
      }
    })
  }
  return fields
}

/** One answer as the field's type; a string says what was wrong with it. */
const valueOf = (field: Field, answer: QuestionAnswer): string | number | boolean | Array<string> | undefined | { readonly wrong: string } => {
  const typed = answer.custom?.trim()
  const picked = answer.selected[0]
  switch (field.kind) {
    case "boolean":
      return picked === undefined ? undefined : picked === "yes"
    case "enum":
      return picked
    case "enums":
      return answer.selected.length === 0 ? undefined : [...answer.selected]
    case "string":
      return typed !== undefined && typed !== "" ? typed : picked
    case "number":
    case "integer": {
      const text = typed !== undefined && typed !== "" ? typed : picked
      if (text === undefined) return undefined
      const value = Number(text)
      if (!Number.isFinite(value) || (field.kind === "integer" && !Number.isInteger(value))) return { wrong: `${field.name}: ${JSON.stringify(text)} is not ${field.kind === "integer" ? "an integer" : "a number"}` }
      return value
    }
  }
}

/**
 * Asks the operator. `note` gets one line when the request is declined for a reason the operator
 * should know (nobody to ask, a field Crystal cannot ask, a wrong answer).
 */
export const askElicitation = async (
  asker: QuestionAsker,
  request: { readonly server: string; readonly message: string; readonly schema: Schema },
  note: (text: string) => void
): Promise<ElicitAnswer> => {
  const fields = elicitationFields(request.server, request.message, request.schema)
  if (typeof fields === "string") {
    note(`MCP server ${request.server} asked for input (${clip(request.message, 80)}); declined: ${fields}.`)
    return { action: "decline" }
  }
  if (fields.length === 0) return { action: "accept", content: {} }
  const outcome = await Effect.runPromise(asker.askQuestions(fields.map((field) => field.question)))
  if (outcome._tag === "NoOperator") {
    note(`MCP server ${request.server} asked for input (${clip(request.message, 80)}); declined: nobody to answer in crystal run.`)
    return { action: "decline" }
  }
  if (outcome._tag === "Dismissed") return { action: "decline" }
  const content: Record<string, string | number | boolean | Array<string>> = {}
  for (const [index, field] of fields.entries()) {
    const answer = outcome.answers[index]
    const value = answer === undefined ? undefined : valueOf(field, answer)
    if (typeof value === "object" && value !== null && !Array.isArray(value)) {
      note(`MCP server ${request.server}'s request declined: ${value.wrong}.`)
      return { action: "decline" }
    }
    if (value === undefined) {
      if (field.required) {
        note(`MCP server ${request.server}'s request declined: ${field.name} needs an answer.`)
        return { action: "decline" }
      }
      continue
    }
    content[field.name] = value
  }
  return { action: "accept", content }
}
