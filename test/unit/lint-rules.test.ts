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
  it.each([
    ["the messageOf shape", "export const f = (error: unknown) => (error instanceof Error ? error.message : String(error))\n", "messageOf"],
    ["a local messageOf", "export const g = 1\nconst messageOf = (e: unknown) => String(e)\nexport const h = messageOf(g)\n", "one home"],
    ["a local formatSize", "const formatSize = (n: number) => `${n} B`\nexport const s = formatSize(1)\n", "one home"],
    ["a local clip", "function clip(text: string) { return text }\nexport const c = clip('x')\n", "one home"],
    ["the plural shape", "export const p = (n: number) => `${n} line${n === 1 ? '' : 's'}`\n", "plural("],
    ["a tool-name literal", "export const isShell = (call: { name: string }) => call.name === 'bash_start'\n", "name constant"]
  ])("refuses %s in src/", async (_what, code, expected) => {
    const messages = await messagesOf(code, "src/engine/example.ts")
    expect(messages.some((message) => message.startsWith("no-restricted-syntax") && message.includes(expected))).toBe(true)
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
