/**
 * Elicitation against server-everything's trigger-elicitation-request: its form becomes the
 * operator's questions (a scripted operator answers them), the answers go back typed; with
 * nobody to ask the request is declined with a note; the call that asked does not time out while
 * the operator takes their time.
 */
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterEach, describe, expect, it } from "vitest"
import { makePathFence } from "../../../src/approval/path-fence.ts"
import { askElicitation, elicitationFields } from "../../../src/mcp/elicitation.ts"
import { makeMcpServers } from "../../../src/mcp/mcp-servers.ts"
import { planServer } from "../../../src/mcp/server-config.ts"
import type { Question, QuestionAnswer, QuestionAsker, QuestionsOutcome } from "../../../src/tools/questions.ts"
import { makeSpill } from "../../../src/tools/spill.ts"
import { everythingServer } from "../../support/mcp/servers.ts"
import { tempDir } from "../../support/temp.ts"
import { noSecrets } from "../../../src/secrets/secrets.ts"

const scopes: Array<Scope.CloseableScope> = []
afterEach(async () => {
  await Promise.all(scopes.splice(0).map((scope) => Effect.runPromise(Scope.close(scope, Exit.void))))
})

const env = (): Record<string, string> => Object.fromEntries(Object.entries(process.env).filter((entry): entry is [string, string] => entry[1] !== undefined))

/** Calls trigger-elicitation-request with `asker` answering; returns the tool's text, the questions and the notes. */
const trigger = async (asker: QuestionAsker, settings: { readonly toolTimeoutSeconds?: number } = {}) => {
  const workspace = await tempDir()
  const notes: Array<string> = []
  const scope = Effect.runSync(Scope.make())
  scopes.push(scope)
  const plan = planServer("everything", { command: process.execPath, args: [everythingServer, "stdio"], ...settings }, { workspace, env: process.env, baseEnv: env() })
  const mcp = await Effect.runPromise(
    makeMcpServers({
      plans: [plan],
      roots: () => [workspace],
      redactor: { secrets: Effect.succeed(noSecrets) },
      elicit: (server, message, schema) => askElicitation(asker, { server, message, schema }, (note) => notes.push(note))
    }).pipe(Scope.extend(scope))
  )
  await Effect.runPromise(mcp.beforeTurn)
  const tool = mcp.tools().find((candidate) => candidate.name === "mcp__everything__trigger-elicitation-request")
  if (tool === undefined) throw new Error(`no elicitation tool among ${mcp.tools().map((t) => t.name).join(", ")}`)
  const spillDir = await tempDir()
  const output = await Effect.runPromise(tool.run({} as never, { fence: makePathFence(workspace, []), sessionId: "t", secrets: noSecrets, spill: makeSpill(spillDir), spillDir }))
  return { text: output.text, notes }
}

describe("elicitation", () => {
  it("asks the form's fields and sends the typed answers back (server-everything)", async () => {
    const asked: Array<ReadonlyArray<Question>> = []
    const answer = (question: Question): QuestionAnswer => {
      if (question.header.endsWith(": String")) return { selected: [], custom: "Ada Lovelace" }
      if (question.header.endsWith(": Boolean")) return { selected: ["yes"] }
      if (question.header.endsWith(": Integer")) return { selected: [], custom: "7" }
      if (question.header.endsWith(": Legacy Titled Single Select Enum")) return { selected: ["pet-2"] }
      if (question.header.endsWith(": Untitled Multiple Select Enum")) return { selected: ["Piano", "Drums"] }
      return { selected: [] }
    }
    const asker: QuestionAsker = {
      askQuestions: (questions) =>
        Effect.sync((): QuestionsOutcome => {
          asked.push(questions)
          return { _tag: "Answered", answers: questions.map(answer) }
        })
    }
    const { text, notes } = await trigger(asker)
    expect(asked).toHaveLength(1)
    expect(asked[0]?.[0]?.question).toContain("Please provide inputs for the following fields:")
    expect(asked[0]?.find((q) => q.header.endsWith(": Boolean"))?.options.map((o) => o.label)).toEqual(["yes", "no"])
    expect(asked[0]?.find((q) => q.header.endsWith(": Titled Single Select Enum"))?.options.map((o) => o.label)).toEqual(["hero-1", "hero-2", "hero-3"])
    expect(text).toContain("User provided the requested information")
    expect(text).toContain("- Name: Ada Lovelace")
    expect(text).toContain("- Agreed to terms: true")
    expect(text).toContain("- Favorite Integer: 7")
    // The server prints only some fields; the raw result it echoes has the rest.
    expect(text).toContain(`"legacyTitledEnum": "pet-2"`)
    expect(text).toContain('"Piano"')
    expect(notes).toEqual([])
  })

  it("declines with a note when nobody can answer, and on a dismissed dialog", async () => {
    const headless = await trigger({ askQuestions: () => Effect.succeed({ _tag: "NoOperator" }) })
    expect(headless.text).toContain("User declined to provide the requested information")
    expect(headless.notes).toEqual([
      "MCP server everything asked for input (Please provide inputs for the following fields:); declined: nobody to answer in crystal run."
    ])
    const dismissed = await trigger({ askQuestions: () => Effect.succeed({ _tag: "Dismissed" }) })
    expect(dismissed.text).toContain("User declined")
  })

  it("starts each question on the field's default, so that the dialog accepted as offered sends the defaults (SEP-1034)", async () => {
    const schema = {
      type: "object",
      properties: {
        name: { type: "string", default: "John Doe" },
        age: { type: "integer", default: 30 },
        score: { type: "number", default: 95.5 },
        status: { type: "string", enum: ["active", "inactive", "pending"], default: "pending" },
        verified: { type: "boolean", default: false },
        tags: { type: "array", items: { type: "string", enum: ["a", "b", "c"] }, default: ["c", "a", "z"] },
        odd: { type: "string", enum: ["x", "y"], default: "w" },
        plain: { type: "string" }
      }
    }
    const fields = elicitationFields("s", "m", schema)
    if (typeof fields === "string") throw new Error(fields)
    expect(fields.map((field) => [field.name, field.question.initial])).toEqual([
      ["name", ["John Doe"]],
      ["age", ["30"]],
      ["score", ["95.5"]],
      ["status", ["pending"]],
      ["verified", ["no"]],
      ["tags", ["a", "c"]],
      ["odd", []],
      ["plain", []]
    ])
    const options = (name: string) => fields.find((field) => field.name === name)?.question.options
    expect(options("status")?.map((option) => option.description)).toEqual(["", "", "the server's default"])
    expect(options("verified")).toEqual([
      { label: "yes", description: "true" },
      { label: "no", description: "false, the server's default" }
    ])
    expect(options("age")).toEqual([{ label: "30", description: "the server's default" }])
    expect(options("plain")).toEqual([])
    expect(fields.find((field) => field.name === "age")?.question.question).toContain("(an integer)")
    // Enter on every question: each answer is what the question started on.
    const asker: QuestionAsker = {
      askQuestions: (questions) => Effect.succeed({ _tag: "Answered", answers: questions.map((question) => ({ selected: question.initial ?? [] })) })
    }
    const notes: Array<string> = []
    expect(await askElicitation(asker, { server: "s", message: "m", schema }, (note) => notes.push(note))).toEqual({
      action: "accept",
      content: { name: "John Doe", age: 30, score: 95.5, status: "pending", verified: false, tags: ["a", "c"] }
    })
    expect(notes).toEqual([])
  })

  it("holds the call's toolTimeoutSeconds while the dialog is open: an answer after 2 s still completes a call with 1 s", async () => {
    const asked: Array<number> = []
    const slowOperator: QuestionAsker = {
      askQuestions: (questions) =>
        Effect.sync(() => asked.push(questions.length)).pipe(
          Effect.zipRight(Effect.sleep("2 seconds")),
          Effect.as<QuestionsOutcome>({ _tag: "Answered", answers: questions.map((q) => (q.header.endsWith(": String") ? { selected: [], custom: "late" } : { selected: [] })) })
        )
    }
    const { text, notes } = await trigger(slowOperator, { toolTimeoutSeconds: 1 })
    expect(asked).toHaveLength(1)
    expect(text).toContain("User provided the requested information")
    expect(text).toContain("- Name: late")
    expect(notes).toEqual([])
  })

  it("refuses a required field it cannot ask, and an answer of the wrong type", async () => {
    expect(elicitationFields("s", "m", { properties: { deep: { type: "object" } }, required: ["deep"] })).toBe(
      "its required field deep is of a kind Crystal cannot ask (object)"
    )
    const notes: Array<string> = []
    const asker: QuestionAsker = { askQuestions: () => Effect.succeed({ _tag: "Answered", answers: [{ selected: [], custom: "many" }] }) }
    const result = await askElicitation(asker, { server: "s", message: "m", schema: { properties: { n: { type: "integer" } }, required: ["n"] } }, (note) => notes.push(note))
    expect(result).toEqual({ action: "decline" })
    expect(notes).toEqual(["MCP server s's request declined: n: \"many\" is not an integer."])
  })
})
