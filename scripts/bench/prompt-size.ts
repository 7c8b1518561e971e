/// <reference types="bun" />
/**
 * How big the first request is: `crystal run "say hi"` in Work mode with every Work tool offered
 * (a skill is installed so that `skill` is too), as the Chat Completions server receives it.
 * Reports the system text and each tool definition in tokens (o200k_base) and bytes.
 * Usage: npm run build && bun scripts/bench/prompt-size.ts
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { getEncoding } from "js-tiktoken"
import { startFakeLlm } from "../../test/support/fake-llm/server.ts"
import { crystalBinary, requireCrystalBinary } from "./measure.ts"

requireCrystalBinary()
const encoding = getEncoding("o200k_base")
const tokens = (text: string): number => encoding.encode(text).length
const kb = (bytes: number): string => `${(bytes / 1024).toFixed(1)} KB`

const root = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-prompt-size-"))
const home = path.join(root, "home")
const workspace = path.join(root, "workspace")
fs.mkdirSync(path.join(home, "skills", "release"), { recursive: true })
fs.mkdirSync(workspace)
fs.writeFileSync(path.join(home, "skills", "release", "SKILL.md"), "---\nname: release\ndescription: How to cut a release\n---\nSteps.\n")
const fake = await startFakeLlm()
fake.script([{ text: "hi" }])
fs.writeFileSync(
  path.join(home, "config.json"),
  JSON.stringify({ model: "local/m", providers: { local: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, models: { m: {} } } } })
)
const child = Bun.spawn([crystalBinary, "run", "say hi"], { cwd: workspace, env: { ...process.env, CRYSTAL_HOME: home }, stdout: "ignore", stderr: "inherit" })
await child.exited
const request = fake.requests[0]
await fake.close()
fs.rmSync(root, { recursive: true, force: true })
if (request === undefined) throw new Error("crystal sent no request")

interface Body {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content: string }>
  readonly tools: ReadonlyArray<{ readonly function: { readonly name: string } }>
}
const body = request.body as Body
const system = body.messages.find((message) => message.role === "system")?.content ?? ""
const toolsJson = JSON.stringify(body.tools)
console.log(`first request for "say hi" in Work mode (${body.tools.length} tools)`)
console.log(`  whole request body      ${kb(Buffer.byteLength(request.rawBody)).padStart(9)}`)
console.log(`  system text             ${kb(Buffer.byteLength(system)).padStart(9)}  ${String(tokens(system)).padStart(6)} tokens`)
console.log(`  tool definitions        ${kb(Buffer.byteLength(toolsJson)).padStart(9)}  ${String(tokens(toolsJson)).padStart(6)} tokens`)
for (const tool of body.tools) {
  const json = JSON.stringify(tool)
  console.log(`    ${tool.function.name.padEnd(12)} ${String(Buffer.byteLength(json)).padStart(6)} B  ${String(tokens(json)).padStart(5)} tokens`)
}
