/**
 * The ACP SDK (and zod, which it validates with) loads only for `crystal acp`: no other command's
 * start-up chunks hold it. Bundled with the splitting flags of scripts/build.ts.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const root = path.resolve(import.meta.dirname, "..", "..")
const bun = path.join(root, "node_modules", ".bin", "bun")
const out = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-acp-bundle-"))
afterAll(() => fs.rmSync(out, { recursive: true, force: true }))

interface Output {
  readonly entryPoint?: string
  readonly inputs: Readonly<Record<string, unknown>>
  readonly imports?: ReadonlyArray<{ readonly path: string; readonly kind: string }>
}

const staticInputs = (outputs: Readonly<Record<string, Output>>, start: string): Array<string> => {
  const seen = new Set<string>()
  const visit = (name: string) => {
    if (seen.has(name) || outputs[name] === undefined) return
    seen.add(name)
    for (const item of outputs[name]?.imports ?? []) if (item.kind === "import-statement") visit(item.path)
  }
  visit(start)
  return [...seen].flatMap((name) => Object.keys(outputs[name]?.inputs ?? {}))
}

describe("the acp bundle", () => {
  it("keeps the ACP SDK and zod out of every chunk but acp's", { timeout: 120_000 }, () => {
    const metafile = path.join(out, "meta.json")
    const run = spawnSync(bun, ["build", "src/main.ts", "--target", "bun", "--format", "esm", "--splitting", "--minify", "--outdir", path.join(out, "js"), `--metafile=${metafile}`], { cwd: root, encoding: "utf8" })
    expect(run.status, run.stderr).toBe(0)
    const outputs = (JSON.parse(fs.readFileSync(metafile, "utf8")) as { outputs: Record<string, Output> }).outputs
    const entryOf = (file: string) => Object.keys(outputs).find((name) => outputs[name]?.entryPoint === file) ?? ""
    const sdk = (input: string) => input.includes("@agentclientprotocol/") || input.includes("node_modules/zod/")
    for (const entry of ["src/main.ts", "src/cli/entry.ts", "src/cli/commands.ts", "src/cli/early-start.ts"]) {
      expect(staticInputs(outputs, entryOf(entry)).filter(sdk), entry).toEqual([])
    }
    // Not vacuous: the agent's own chunk holds it.
    expect(staticInputs(outputs, entryOf("src/acp/agent.ts")).some(sdk)).toBe(true)
  })
})
