/**
 * The dependency rule (docs/architecture.md), checked on every file: entry points (src/main.ts, src/acp,
 * src/cli, src/tui) → layers/ → the other folders of src/. No folder of src/ below the entry
 * points imports an entry point or layers/; providers, session, config and media know nothing of
 * the engine; and the folders of src/ import each other without cycles. Type-only imports count:
 * a type that points the wrong way is a seam in the wrong place.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"

const root = path.resolve(import.meta.dirname, "../..")

const sourceFiles = (dir: string): Array<string> =>
  fs.readdirSync(path.join(root, dir), { withFileTypes: true }).flatMap((entry) => {
    const relative = path.join(dir, entry.name)
    if (entry.isDirectory()) return sourceFiles(relative)
    return entry.name.endsWith(".ts") && !entry.name.endsWith(".d.ts") ? [relative] : []
  })

/** Relative imports of a file, static and dynamic, resolved to paths from the repository root. */
const importsOf = (file: string): Array<string> => {
  const source = fs.readFileSync(path.join(root, file), "utf8")
  const specifiers = [
    ...source.matchAll(/^\s*(?:import|export)\s[^"';]*?["'](\.[^"']+)["']/gm),
    ...source.matchAll(/import\(\s*["'](\.[^"']+)["']\s*\)/g)
  ].map((match) => match[1] ?? "")
  return specifiers.map((specifier) => path.relative(root, path.resolve(path.dirname(path.join(root, file)), specifier)))
}

/** "layers", "src/main.ts", or the folder under src/ ("src/engine"). */
const unitOf = (file: string): string => {
  const parts = file.split(path.sep)
  if (parts[0] === "layers") return "layers"
  return parts.length === 2 ? file : `${parts[0]}/${parts[1]}`
}

const entryUnits = new Set(["src/main.ts", "src/cli", "src/tui", "src/acp"])
const engineFree = new Set(["src/providers", "src/session", "src/config", "src/media"])

const files = [...sourceFiles("src"), ...sourceFiles("layers")]
const edges = files.flatMap((file) => importsOf(file).map((target) => ({ file, target, from: unitOf(file), to: unitOf(target) })))
const crossing = edges.filter((edge) => edge.from !== edge.to)

const describeEdge = (edge: { readonly file: string; readonly target: string }) => `${edge.file} → ${edge.target}`

describe("the dependency rule", () => {
  it("reads the imports of every file (the check below is not vacuous)", () => {
    expect(files.length).toBeGreaterThan(150)
    expect(crossing.length).toBeGreaterThan(100)
    expect(crossing.some((edge) => edge.from === "src/cli" && edge.to === "layers")).toBe(true)
  })

  it("layers/ imports only src/ folders below the entry points", () => {
    expect(crossing.filter((edge) => edge.from === "layers" && entryUnits.has(edge.to)).map(describeEdge)).toEqual([])
  })

  it("no folder below the entry points imports an entry point or layers/", () => {
    const wrong = crossing.filter((edge) => edge.from !== "layers" && !entryUnits.has(edge.from) && (edge.to === "layers" || entryUnits.has(edge.to)))
    expect(wrong.map(describeEdge)).toEqual([])
  })

  it("providers, session, config and media never import the engine", () => {
    expect(crossing.filter((edge) => engineFree.has(edge.from) && edge.to === "src/engine").map(describeEdge)).toEqual([])
  })

  it("the folders of src/ below the entry points import each other without cycles", () => {
    const inner = crossing.filter((edge) => edge.from !== "layers" && edge.to !== "layers" && !entryUnits.has(edge.from) && !entryUnits.has(edge.to))
    const graph = new Map<string, Set<string>>()
    for (const edge of inner) graph.set(edge.from, (graph.get(edge.from) ?? new Set()).add(edge.to))
    const cycles: Array<string> = []
    const visit = (unit: string, trail: ReadonlyArray<string>) => {
      if (trail.includes(unit)) {
        cycles.push([...trail.slice(trail.indexOf(unit)), unit].join(" → "))
        return
      }
      for (const next of graph.get(unit) ?? []) visit(next, [...trail, unit])
    }
    for (const unit of graph.keys()) visit(unit, [])
    const examples = [...new Set(cycles)].map((cycle) => {
      const [a, b] = cycle.split(" → ")
      const edge = inner.find((candidate) => candidate.from === a && candidate.to === b)
      return edge === undefined ? cycle : `${cycle} (e.g. ${describeEdge(edge)})`
    })
    expect(examples).toEqual([])
  })

  it("the folders below the entry points import only folders of a lower rank, in docs/architecture.md's order", () => {
    const doc = fs.readFileSync(path.join(root, "docs", "architecture.md"), "utf8")
    const line = /^`((?:[a-z-]+(?:, | → ))+[a-z-]+)`$/m.exec(doc)?.[1]
    expect(line, "docs/architecture.md has the folder order as one line in backquotes").toBeDefined()
    const rank = new Map<string, number>()
    for (const [level, names] of (line ?? "").split(" → ").entries()) for (const name of names.split(", ")) rank.set(`src/${name}`, level)
    const folders = fs
      .readdirSync(path.join(root, "src"), { withFileTypes: true })
      .filter((entry) => entry.isDirectory() && !entryUnits.has(`src/${entry.name}`))
      .map((entry) => `src/${entry.name}`)
    expect(folders.filter((folder) => !rank.has(folder)), "folders missing from the order").toEqual([])
    expect([...rank.keys()].filter((folder) => !folders.includes(folder)), "names in the order that are not folders").toEqual([])
    const inner = crossing.filter((edge) => rank.has(edge.from) && rank.has(edge.to))
    expect(inner.length).toBeGreaterThan(50)
    const upward = inner.filter((edge) => (rank.get(edge.to) ?? 0) >= (rank.get(edge.from) ?? 0))
    expect([...new Set(upward.map((edge) => `${edge.from} → ${edge.to} (e.g. ${describeEdge(edge)})`))]).toEqual([])
  })
})
