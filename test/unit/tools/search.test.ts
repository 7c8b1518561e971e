import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { searchWorkerSource } from "../../../src/search/kernel.ts"
import { SearchIndexCache } from "../../../src/search/cache.ts"
import { SearchIndex, type SearchIndexOptions } from "../../../src/search/forward-index.ts"
import { searchSpec } from "../../../src/tools/search-spec.ts"
import { parseQuery, splitWords, stem } from "../../../src/search/tokenize.ts"
import { makeSearchWorkspace, rankFiles } from "../../../src/tools/search.ts"
import { defineTool } from "../../../src/tools/tool.ts"
import { cleanupFixtures, makeFixture, run, runError, writeTree, type Tree } from "./support.ts"

/** The indexes of the session the tests search in; each test starts a new one. */
let indexes = new SearchIndexCache()
const searchTool = defineTool({ ...searchSpec, run: (args, context) => makeSearchWorkspace(indexes)(args, context) })

afterEach(async () => {
  indexes = new SearchIndexCache()
  await cleanupFixtures()
})

/** The paths of a search output, in order. */
const pathsOf = (output: string): Array<string> =>
  output
    .split("\n")
    .filter((line) => !line.startsWith(" ") && !line.startsWith("["))
    .map((line) => line.replace(/ \(\d+\.\d\)$/, ""))

const search = async (context: Parameters<typeof run>[2], query: string, extra: Record<string, unknown> = {}): Promise<string> =>
  run(searchTool, { query, ...extra }, context)

/** A deterministic pseudo-random generator for noise files. */
const prng = (seed: number): (() => number) => {
  let state = seed >>> 0
  return () => {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0
    return state / 2 ** 32
  }
}

const NOISE_WORDS = (
  "value result config options request response handler error message buffer stream token format render widget layout " +
  "queue worker event listener cache index user account timer delay count total item list entry node tree graph edge " +
  "path file folder name label title text color width height size offset length range start end first last next prev " +
  "open close read write send receive connect socket server client route router query filter sort group merge split " +
  "join map reduce state store action reducer effect hook context provider theme style module plugin loader builder"
).split(" ")
const MENTIONS = ["parse", "retry", "after", "header", "session", "save", "store"]

/** Files of ordinary code: generic words, and now and then a word of the test queries. */
const noise = (count: number): Tree => {
  const random = prng(42)
  const pick = (): string => {
    const words = random() < 0.03 ? MENTIONS : NOISE_WORDS
    return words[Math.floor(random() * words.length)] ?? "value"
  }
  const files: Record<string, string> = {}
  for (let i = 0; i < count; i++) {
    const lines: Array<string> = []
    for (let l = 0; l < 30; l++) lines.push(`const ${pick()}${pick().replace(/^./, (c) => c.toUpperCase())} = ${pick()}(${pick()}, ${pick()})`)
    files[`src/gen/module${i}.ts`] = `${lines.join("\n")}\n`
  }
  return files
}

const project: Tree = {
  "src/net/timing.ts": [
    "import { clamp } from '../util/math.ts'",
    "",
    "/** A Retry-After value is either seconds or an HTTP date. */",
    "export function parseRetryAfter(value: string | null, now: number): number | undefined {",
    "  if (value === null) return undefined",
    "  const seconds = Number(value)",
    "  if (Number.isFinite(seconds)) return clamp(seconds * 1000, 0, 60_000)",
    "  const date = Date.parse(value)",
    "  return Number.isNaN(date) ? undefined : Math.max(0, date - now)",
    "}",
    ""
  ].join("\n"),
  "src/net/client.ts": [
    "import { parseRetryAfter } from './timing.ts'",
    "import { readHeaders } from './headers.ts'",
    "",
    "export async function send(request: Request): Promise<Response> {",
    "  const response = await fetch(request)",
    "  if (response.status === 429) {",
    "    const wait = parseRetryAfter(response.headers.get('retry-after'), Date.now())",
    "    await sleep(wait ?? 1000)",
    "  }",
    "  return response",
    "}",
    ""
  ].join("\n"),
  "src/net/headers.ts": [
    "/** Header names, lower-cased. */",
    "export const HEADER_NAMES = ['content-type', 'content-length', 'retry-after', 'authorization']",
    "export function readHeaders(raw: string): Map<string, string> {",
    "  const headers = new Map<string, string>()",
    "  for (const line of raw.split('\\r\\n')) {",
    "    const [name, value] = line.split(': ')",
    "    if (name && value) headers.set(name.toLowerCase(), value)",
    "  }",
    "  return headers",
    "}",
    "export function normalizeHeader(header: string): string { return header.trim().toLowerCase() }",
    "export const headerCount = (headers: Map<string, string>): number => headers.size",
    ""
  ].join("\n"),
  "src/net/parse.ts": [
    "export function parseUrl(text: string): URL { return new URL(text) }",
    "export function parseQuery(text: string): URLSearchParams { return new URLSearchParams(text) }",
    "export function parseBody(text: string): unknown { return JSON.parse(text) }",
    "export const parsers = { parseUrl, parseQuery, parseBody }",
    "// parsing helpers; every parser here is pure",
    ""
  ].join("\n"),
  "src/net/backoff.ts": [
    "export interface RetryOptions { retries: number; minDelay: number }",
    "export function backoffDelay(attempt: number, options: RetryOptions): number {",
    "  const retry = Math.min(attempt, options.retries)",
    "  return options.minDelay * 2 ** retry",
    "}",
    "export const shouldRetry = (status: number): boolean => status === 429 || status >= 500",
    ""
  ].join("\n"),
  "docs/retries.md": "# Retries\n\nThe client retries a failed request after a delay; the delay grows after every retry.\n",
  "src/session/store.ts": [
    "import type { Session } from './types.ts'",
    "",
    "export class SessionStore {",
    "  private readonly dir: string",
    "  constructor(dir: string) { this.dir = dir }",
    "  async save(session: Session): Promise<void> {",
    "    await writeJson(`${this.dir}/${session.id}.json`, session)",
    "  }",
    "  async load(id: string): Promise<Session> { return readJson(`${this.dir}/${id}.json`) }",
    "}",
    ""
  ].join("\n"),
  "src/session/types.ts": [
    "export interface Session { id: string; title: string; createdAt: number }",
    "export type SessionId = Session['id']",
    "export const sessionTitle = (session: Session): string => session.title",
    "export const emptySession = (id: string): Session => ({ id, title: '', createdAt: 0 })",
    ""
  ].join("\n"),
  "src/cache/store.ts": "export class CacheStore { private readonly map = new Map<string, unknown>() }\nexport const store = new CacheStore()\n",
  "src/ui/save-button.tsx": "export const SaveButton = () => <button onClick={save}>Save</button>\nfunction save() { window.saveAll() }\n",
  "src/util/math.ts": "export const clamp = (value: number, low: number, high: number): number => Math.min(high, Math.max(low, value))\n",
  ...noise(60)
}

/** Sets the mtime of every file and directory under `dir` to `seconds` ago, so later edits are not racy. */
const age = async (dir: string, seconds = 3600): Promise<void> => {
  const when = new Date(Date.now() - seconds * 1000)
  const visit = async (current: string): Promise<void> => {
    for (const entry of await fs.readdir(current, { withFileTypes: true })) {
      const full = path.join(current, entry.name)
      if (entry.isDirectory()) await visit(full)
      await fs.utimes(full, when, when)
    }
  }
  await visit(dir)
  await fs.utimes(dir, when, when)
}

/** Writes a file and gives it an mtime of `seconds` ago (distinct from `age`'s). */
const edit = async (file: string, content: string, seconds = 1800): Promise<void> => {
  await fs.writeFile(file, content)
  const when = new Date(Date.now() - seconds * 1000)
  await fs.utimes(file, when, when)
}

describe("search words", () => {
  it("splits identifiers on case, digits and punctuation, lower-cased", () => {
    expect(splitWords("parseRetryAfter")).toEqual(["parse", "retry", "after"])
    expect(splitWords("ParseRetryAfter parse_retry_after PARSE_RETRY_AFTER retry-after")).toEqual([
      "parse", "retry", "after", "parse", "retry", "after", "parse", "retry", "after", "retry", "after"
    ])
    expect(splitWords("HTTPServerError getHTTPResponse")).toEqual(["http", "server", "error", "get", "http", "response"])
    expect(splitWords("utf8Decode base64 v2 x86_64 1234567 Matrix4")).toEqual([
      "utf", "utf8", "decode", "base", "64", "base64", "v2", "86", "x86", "64", "matrix", "matrix4"
    ])
    expect(splitWords("src/session/store.ts")).toEqual(["src", "session", "store", "ts"])
    expect(splitWords("naïveCafé")).toEqual(["naïve", "café"])
  })

  it("drops the function words of questions but keeps code words", () => {
    expect(splitWords("how is the retry-after header parsed")).toEqual(["retry", "after", "header", "parsed"])
    expect(splitWords("where do we get the new value if not set")).toEqual(["get", "new", "value", "if", "not", "set"])
  })

  it("stems plural and verb endings to one form", () => {
    const same = (...words: Array<string>): void => expect(new Set(words.map(stem)).size, words.join(",")).toBe(1)
    same("parse", "parses", "parsed", "parsing", "parser", "parsers")
    same("retry", "retries", "retried", "retrying")
    same("save", "saves", "saved", "saving")
    same("store", "stores", "stored")
    same("cache", "caches", "cached", "caching")
    same("match", "matches", "matched", "matching")
    same("map", "maps", "mapped", "mapping")
    same("class", "classes")
    expect(stem("status")).toBe("status")
    expect(stem("is")).toBe("is")
    expect(stem("utf8")).toBe("utf8")
  })

  it("parses a query into distinct stems", () => {
    expect(parseQuery("How is the Retry-After header parsed?").stems).toEqual(["retry", "aft", "head", "pars"])
    expect(parseQuery("parse parser parsing").stems).toEqual(["pars"])
    expect(parseQuery("how is the").stems).toEqual([])
  })
})

describe("search ranking", () => {
  it("puts the file defining parseRetryAfter first for a question about the retry-after header", async () => {
    const f = await makeFixture(project)
    const output = await search(f.context, "how is the retry-after header parsed")
    const paths = pathsOf(output)
    expect(paths[0]).toBe("src/net/timing.ts")
    // The caller comes next: it holds the same words, but does not define them.
    expect(paths.indexOf("src/net/client.ts")).toBeGreaterThan(0)
    expect(output).toContain("  4: export function parseRetryAfter(value: string | null, now: number): number | undefined {")
  })

  it("finds a definition by its identifier in any spelling", async () => {
    const f = await makeFixture(project)
    for (const query of ["parseRetryAfter", "parse_retry_after", "ParseRetryAfter", "retry after parsing"]) {
      expect(pathsOf(await search(f.context, query))[0], query).toBe("src/net/timing.ts")
    }
  })

  it("ranks a path match: session store save", async () => {
    const f = await makeFixture(project)
    const output = await search(f.context, "session store save")
    expect(pathsOf(output)[0]).toBe("src/session/store.ts")
    expect(output).toMatch(/^src\/session\/store\.ts \(\d+\.\d\)\n(?: {2}\d+: .*\n)* {2}3: export class SessionStore \{\n(?: {2}\d+: .*\n)* {2}6: async save\(/)
  })

  it("matches words by stem and prefix", async () => {
    const f = await makeFixture(project)
    // No file says "retried": retry, retries and Retry match it.
    expect(pathsOf(await search(f.context, "retried")).slice(0, 2).sort()).toEqual(["docs/retries.md", "src/net/backoff.ts"])
    expect(pathsOf(await search(f.context, "normalize headers"))[0]).toBe("src/net/headers.ts")
    // "clam" is no word of the index: it matches as the prefix of "clamp".
    expect(pathsOf(await search(f.context, "clam"))).toContain("src/util/math.ts")
  })

  it("gives the same results from a build with worker threads", async () => {
    const f = await makeFixture(project)
    const onThread = await SearchIndex.build(f.workspace, { workers: 0 })
    const withWorkers = await SearchIndex.build(f.workspace, { workers: 2, workerMinFiles: 1 })
    expect(withWorkers.stats()).toMatchObject({ workers: 2, workerFiles: onThread.stats().indexed })
    expect({ ...withWorkers.stats(), workers: 0, workerFiles: 0 }).toEqual(onThread.stats())
    for (const query of ["how is the retry-after header parsed", "session store save", "delay timer queue"]) {
      const stems = parseQuery(query).stems
      expect(await rankFiles(withWorkers, stems, "", 10)).toEqual(await rankFiles(onThread, stems, "", 10))
    }
  })

  it("gives the worker a self-contained source", () => {
    const source = searchWorkerSource()
    expect(source).toContain("require(\"node:worker_threads\")")
    expect(() => new Function("require", source)).not.toThrow()
  })
})

describe("search output", () => {
  it("prints `path (score)` blocks with up to 3 numbered, trimmed lines, best first", async () => {
    const f = await makeFixture(project)
    const output = await search(f.context, "parse", { limit: 3 })
    const lines = output.split("\n")
    expect(pathsOf(output)).toHaveLength(3)
    for (const line of lines) expect(line).toMatch(/^(\S.* \(\d+\.\d\)| {2}\d+: \S.*)$/)
    const scores = lines.filter((line) => !line.startsWith(" ")).map((line) => Number(/\((\d+\.\d)\)$/.exec(line)?.[1]))
    expect([...scores].sort((a, b) => b - a)).toEqual(scores)
    let shown = 0
    for (const line of lines) {
      if (!line.startsWith(" ")) shown = 0
      else expect(++shown).toBeLessThanOrEqual(3)
    }
  })

  it("returns at most `limit` files, 10 by default", async () => {
    const f = await makeFixture(project)
    expect(pathsOf(await search(f.context, "value"))).toHaveLength(10)
    expect(pathsOf(await search(f.context, "value", { limit: 2 }))).toHaveLength(2)
    expect(await runError(searchTool, { query: "value", limit: 0 }, f.context)).toMatch(/bad arguments/)
  })

  it("cuts long lines around the match", async () => {
    const long = `${"x".repeat(300)} needleWord ${"y".repeat(300)}`
    const f = await makeFixture({ "a.txt": `short line\n${long}\n` })
    const output = await search(f.context, "needle word")
    const line = output.split("\n")[1] ?? ""
    expect(line).toMatch(/^ {2}2: …x+ needleWord y+…$/)
    expect(line.length).toBeLessThan(180)
  })

  it("says so when nothing matches, pointing to grep and glob", async () => {
    const f = await makeFixture(project)
    expect(await search(f.context, "kangaroo")).toBe(
      'No files match "kangaroo" in . (.git, ignored, binary, generated and files over 1 MiB are skipped). Try grep with a pattern, or glob for file names.'
    )
    expect(await search(f.context, "how is the")).toMatch(/^"how is the" has no words to search for/)
    expect(await runError(searchTool, { query: "  " }, f.context)).toMatch(/^query is empty/)
  })

  it("searches only under `path`, which must be a directory", async () => {
    const f = await makeFixture(project)
    const output = await search(f.context, "retry", { path: "src/net" })
    expect(pathsOf(output).length).toBeGreaterThan(1)
    expect(pathsOf(output).every((p) => p.startsWith("src/net/"))).toBe(true)
    expect(pathsOf(await search(f.context, "session", { path: "src/session" })).sort()).toEqual(["src/session/store.ts", "src/session/types.ts"])
    expect(await runError(searchTool, { query: "x", path: "src/net/timing.ts" }, f.context)).toMatch(/is not a directory/)
    expect(await runError(searchTool, { query: "x", path: "nowhere" }, f.context)).toMatch(/^Directory not found: nowhere/)
  })
})

describe("search file selection", () => {
  it("skips .git, ignored, binary and huge files", async () => {
    const f = await makeFixture({
      ".gitignore": "dist/\n*.log\n",
      "src/keep.ts": "export const parseRetryAfter = 1\n",
      "dist/bundle.js": "function parseRetryAfter() {}\n",
      "debug.log": "parseRetryAfter failed\n",
      ".git/config": "parseRetryAfter\n",
      "blob.bin": Buffer.from("parseRetryAfter\0\x01\x02binary"),
      "huge.txt": `parseRetryAfter\n${"filler words here\n".repeat(70_000)}`,
      "utf16.txt": Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from("parseRetryAfter in utf-16\n", "utf16le")])
    })
    const output = await search(f.context, "parseRetryAfter")
    expect(pathsOf(output).sort()).toEqual(["src/keep.ts", "utf16.txt"])
    const index = await SearchIndex.build(f.workspace)
    expect(index.stats()).toMatchObject({ files: 5, indexed: 3, tooBig: 1, binary: 1 })
  })

  it("is classified as a low-risk read of the searched directory", async () => {
    const f = await makeFixture(project)
    const inside = await Effect.runPromise(searchSpec.classify({ query: "x", path: "src" }, f.context))
    expect(inside).toMatchObject({ risk: "low", authority: "read", scope: "workspace", summary: "search src" })
    expect(inside.paths).toEqual([{ real: path.join(f.workspace, "src"), access: "read", scope: "workspace" }])
    expect(await Effect.runPromise(searchSpec.classify({ query: "x" }, f.context))).toMatchObject({ summary: "search ." })
    const outside = await Effect.runPromise(searchSpec.classify({ query: "x", path: "../outside" }, f.context))
    expect(outside).toMatchObject({ risk: "high", authority: "read", scope: "outside" })
  })
})

describe("search index updates", () => {
  const updates = (options: SearchIndexOptions, label: string): void => {
    it(`sees edited, added and deleted files and ignore-rule changes (${label})`, async () => {
      indexes = new SearchIndexCache(options)
      const f = await makeFixture({ ...project, "src/a.ts": "export const first = 1\n", "src/b.ts": "export const second = 2\n" })
      await age(f.workspace)
      expect(await search(f.context, "zebra")).toMatch(/^No files match/)

      // An in-place edit: the directory does not change, the file's mtime and size do.
      await edit(path.join(f.workspace, "src/a.ts"), "export const zebraCount = 1\n")
      let found = ""
      for (let i = 0; i < 40 && !found.startsWith("src/a.ts"); i++) found = await search(f.context, "zebra")
      expect(pathsOf(found)).toEqual(["src/a.ts"])

      // A new file in a new directory.
      await writeTree(f.workspace, { "src/new/deep/c.ts": "export function giraffeNeck() {}\n" })
      expect(pathsOf(await search(f.context, "giraffe neck"))).toEqual(["src/new/deep/c.ts"])

      // A deleted file, and a deleted directory.
      await fs.rm(path.join(f.workspace, "src/a.ts"))
      expect(await search(f.context, "zebra")).toMatch(/^No files match/)
      await fs.rm(path.join(f.workspace, "src/new"), { recursive: true })
      expect(await search(f.context, "giraffe")).toMatch(/^No files match/)

      // An ignore rule added, then removed.
      await writeTree(f.workspace, { "src/session/.gitignore": "store.ts\n" })
      expect(pathsOf(await search(f.context, "session store save"))).not.toContain("src/session/store.ts")
      await edit(path.join(f.workspace, "src/session/.gitignore"), "# nothing ignored\n")
      let again = ""
      for (let i = 0; i < 40 && !again.startsWith("src/session/store.ts"); i++) again = await search(f.context, "session store save")
      expect(pathsOf(again)[0]).toBe("src/session/store.ts")
    })
  }
  updates({}, "every file re-stat'ed")
  updates({ restatBudget: 7, dirRestatBudget: 2 }, "a few files and directories per query")

  it("re-reads a file changed within the same timestamp tick (racy mtime)", async () => {
    const f = await makeFixture({ "a.txt": "alpha1 content\n" })
    expect(pathsOf(await search(f.context, "alpha1"))).toEqual(["a.txt"])
    const file = path.join(f.workspace, "a.txt")
    const { mtime } = await fs.stat(file)
    await fs.writeFile(file, "omega1 content\n")
    await fs.utimes(file, mtime, mtime)
    expect(pathsOf(await search(f.context, "omega1"))).toEqual(["a.txt"])
    expect(await search(f.context, "alpha1")).toMatch(/^No files match/)
  })

  it("never shows stale lines: files about to be shown are checked first", async () => {
    indexes = new SearchIndexCache({ restatBudget: 1 })
    const f = await makeFixture({ ...project })
    await age(f.workspace)
    expect(await search(f.context, "parseRetryAfter")).toContain("  4: export function parseRetryAfter(")
    await edit(path.join(f.workspace, "src/net/timing.ts"), "// moved\n\n\n\n\nexport function parseRetryAfter(value: string): number { return 0 }\n")
    expect(await search(f.context, "parseRetryAfter")).toContain("  6: export function parseRetryAfter(value: string): number { return 0 }")
  })
})
