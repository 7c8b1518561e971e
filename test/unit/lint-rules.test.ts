/**
 * The lint rules that keep issue 24's duplicates from coming back (eslint.config.js), run on
 * snippets as if they were files of the product: each shape is refused where it does not belong
 * and allowed in its home.
 */
import * as path from "node:path"
import { ESLint } from "eslint"
import { describe, expect, it } from "vitest"

const eslint = new ESLint({ cwd: path.resolve(import.meta.dirname, "../..") })

const messagesOf = async (code: string, file: string): Promise<ReadonlyArray<string>> => {
  const [result] = await eslint.lintText(code, { filePath: file })
  return (result?.messages ?? []).map((message) => `${message.ruleId}: ${message.message}`)
}

describe("lint rules against duplicates", () => {
  const declared = "declare const call: { name: string }\ndeclare const r: { tool: string }\ndeclare const name: string\ndeclare const n: number\ndeclare const e: unknown\n"

  it.each([
    ["the messageOf shape", "export const f = (error: unknown) => (error instanceof Error ? error.message : String(error))\n", "messageOf"],
    ["the messageOf shape with ?.", "export const f = e instanceof Error ? e?.message : String(e)\n", "messageOf"],
    ["the messageOf shape with another fallback", "export const f = e instanceof Error ? e.message : `${e}`\n", "messageOf"],
    ["the codeOf shape with ??", "export const c = (e as NodeJS.ErrnoException).code ?? String(e)\n", "codeOf"],
    ["the codeOf shape with ||", "export const c = (e as { code?: string }).code || String(e)\n", "codeOf"],
    ["a local messageOf", "export const g = 1\nconst messageOf = (e: unknown) => String(e)\nexport const h = messageOf(g)\n", "one home"],
    ["a local formatSize", "const formatSize = (n: number) => `${n} B`\nexport const s = formatSize(1)\n", "one home"],
    ["a local clip", "function clip(text: string) { return text }\nexport const c = clip('x')\n", "one home"],
    ["a local codeOf", "function codeOf(e: unknown) { return String(e) }\nexport const c = codeOf(1)\n", "one home"],
    ["the plural shape", "export const p = `${n} line${n === 1 ? '' : 's'}`\n", "plural("],
    ["the plural shape with !==", "export const p = `${n} line${n !== 1 ? 's' : ''}`\n", "plural("],
    ["the plural shape with >", "export const p = `${n} line${n > 1 ? 's' : ''}`\n", "plural("],
    ["the plural shape with ==", 'export const p = `${n} line${n == 1 ? "" : "s"}`\n', "plural("],
    ["the plural shape with the count", "export const p = n === 1 ? '1 tool' : `${n} tools`\n", "plural("],
    ["a tool-name literal", "export const isShell = call.name === 'bash_start'\n", "name constant"],
    ["a tool-name literal on the left", 'export const isShell = "bash" === call.name\n', "name constant"],
    ["a tool-name literal against a bare name", 'export const isShell = name === "bash"\n', "name constant"],
    ["a tool-name literal with !=", 'export const notShell = call.name != "bash"\n', "name constant"],
    ["a tool-name literal against .tool", 'export const isEdit = r.tool === "edit"\n', "name constant"],
    ["a tool-name case of a switch on a name", 'export const k = () => {\n  switch (call.name) {\n    case "bash":\n      return 1\n  }\n  return 0\n}\n', "name constant"],
    ["a tool-name case of a switch on a bare name", 'export const k = () => {\n  switch (name) {\n    case "read":\n      return 1\n  }\n  return 0\n}\n', "name constant"],
    ["tool-name literals in an includes list", 'export const isShell = ["bash", "bash_start"].includes(call.name)\n', "name constant"]
  ])("refuses %s in src/", async (_what, code, expected) => {
    const messages = await messagesOf(declared + code, "src/engine/example.ts")
    expect(messages.some((message) => message.startsWith("no-restricted-syntax") && message.includes(expected))).toBe(true)
  })

  it.each([
    ["a name compared with a word that is no tool", 'export const x = call.name === "bashful"\n'],
    ["a tool name compared with another property", 'export const x = r.tool.length === 4 && (call as { kind?: string }).kind === "read"\n'],
    ["a switch on something else", 'export const k = () => {\n  switch (r.tool.length) {\n    case 4:\n      return 1\n  }\n  return 0\n}\n'],
    ["plural()", 'import { plural } from "../text/plural.ts"\nexport const p = plural(n, "line")\n'],
    ["a count test that is no plural", "export const p = n === 1 ? 'one' : 'many'\n"],
    ["messageOf()", 'import { messageOf } from "../text/error-text.ts"\nexport const m = messageOf(e)\n'],
    ["a .code fallback to something else", "export const c = (e as { code?: string }).code ?? 'none'\n"]
  ])("allows %s in src/", async (_what, code) => {
    expect(await messagesOf(declared + code, "src/engine/example.ts")).toEqual([])
  })

  it("allows the helpers in their homes, and tool names in tests", async () => {
    expect(await messagesOf("export const messageOf = (error: unknown): string => (error instanceof Error ? error.message : String(error))\n", "src/text/error-text.ts")).toEqual([])
    expect(await messagesOf("export const isShell = (call: { name: string }) => call.name === 'bash'\n", "test/unit/example.test.ts")).toEqual([])
  })

  it("refuses a function over 120 lines in src/", async () => {
    const long = `export const f = (): number => {\n${"  void 0\n".repeat(120)}  return 1\n}\n`
    expect(await messagesOf(long, "src/engine/example.ts")).toEqual([expect.stringMatching(/^max-lines-per-function: /)])
    expect(await messagesOf(long, "test/unit/example.test.ts")).toEqual([])
  })
})
