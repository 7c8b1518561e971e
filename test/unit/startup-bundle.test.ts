/**
 * The code `crystal run` evaluates before its first request comes in one chunk of the bundle
 * (plus the entry's stub). Bun keeps it together by itself until something splits it: one
 * top-level await anywhere in the program (src/tui/width.ts had one) cut it into ~20 chunks, each
 * loaded and linked on its own, and start-up went from ~36 to ~45 ms before the first line of
 * src/cli/entry.ts ran (docs/startup.md). Bundled with the splitting flags of scripts/build.ts.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, describe, expect, it } from "vitest"

const root = path.resolve(import.meta.dirname, "..", "..")
const bun = path.join(root, "node_modules", ".bin", process.platform === "win32" ? "bun.exe" : "bun")
const out = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bundle-"))

afterAll(() => fs.rmSync(out, { recursive: true, force: true }))

interface Metafile {
  readonly outputs: Readonly<
    Record<
      string,
      {
        readonly bytes: number
        readonly entryPoint?: string
        readonly inputs: Readonly<Record<string, unknown>>
        readonly imports?: ReadonlyArray<{ readonly path: string; readonly kind: string }>
      }
    >
  >
}

const bundle = (): Metafile => {
  const metafile = path.join(out, "meta.json")
  const args = ["build", "src/main.ts", "--target", "bun", "--format", "esm", "--splitting", "--minify", "--outdir", path.join(out, "js"), `--metafile=${metafile}`]
  const run = spawnSync(bun, args, { cwd: root, encoding: "utf8" })
  expect(run.status, run.stderr).toBe(0)
  return JSON.parse(fs.readFileSync(metafile, "utf8")) as Metafile
}

/** The chunks a chunk loads before it runs: itself and its static imports, transitively. */
const staticChunks = (meta: Metafile, start: string): Array<string> => {
  const seen = new Set<string>()
  const visit = (name: string) => {
    if (seen.has(name) || meta.outputs[name] === undefined) return
    seen.add(name)
    for (const item of meta.outputs[name]?.imports ?? []) if (item.kind === "import-statement") visit(item.path)
  }
  visit(start)
  return [...seen]
}

describe("the start-up bundle", () => {
  it("loads crystal run's code in one chunk besides the entry's", { timeout: 120_000 }, () => {
    const meta = bundle()
    const entry = Object.keys(meta.outputs).find((name) => meta.outputs[name]?.entryPoint === "src/cli/entry.ts")
    expect(entry).toBeDefined()
    const chunks = staticChunks(meta, entry ?? "")
    const inputs = chunks.flatMap((name) => Object.keys(meta.outputs[name]?.inputs ?? {}))
    // Not vacuous: the closure holds the run command and the Effect runtime.
    expect(inputs).toContain("src/cli/run-command.ts")
    expect(inputs.some((input) => input.endsWith("effect/dist/esm/internal/fiberRuntime.js"))).toBe(true)
    // With no MCP server configured nothing of the SDK is loaded (issue 15), and of src/mcp only
    // what reads config.json's stdio servers to spawn them early (src/cli/early-start.ts).
    expect(inputs.filter((input) => input.includes("@modelcontextprotocol"))).toEqual([])
    // ajv is loaded only by `crystal run --output-schema` (src/output-schema/schema-file.ts).
    expect(inputs.filter((input) => input.includes("node_modules/ajv"))).toEqual([])
    expect(inputs.filter((input) => input.startsWith("src/mcp/")).sort()).toEqual(["src/mcp/early-servers.ts", "src/mcp/server-config.ts", "src/mcp/server-process.ts"])
    // Besides the entry's own: the chunk it shares with the other commands, and the one it shares
    // with src/cli/early-start.ts (the early MCP start, below).
    expect(chunks.length, `start-up chunks: ${chunks.join(", ")} (a top-level await somewhere?)`).toBeLessThanOrEqual(3)
  })

  it("spawns config.json's MCP servers and warms the provider's connection from code that loads neither Effect nor the SDK", { timeout: 120_000 }, () => {
    const meta = bundle()
    const early = Object.keys(meta.outputs).find((name) => meta.outputs[name]?.entryPoint === "src/cli/early-start.ts")
    expect(early).toBeDefined()
    const inputs = staticChunks(meta, early ?? "").flatMap((name) => Object.keys(meta.outputs[name]?.inputs ?? {}))
    expect(inputs).toContain("src/mcp/server-process.ts")
    expect(inputs).toContain("src/providers/model-choice.ts")
    expect(inputs.filter((input) => input.includes("node_modules/"))).toEqual([])
  })
})
