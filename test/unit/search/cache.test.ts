import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { makeBuiltinTools } from "../../../src/tools/builtin.ts"
import { SearchIndexCache } from "../../../src/search/cache.ts"
import { SearchIndex, withSearchIndex } from "../../../src/search/forward-index.ts"
import { cleanupFixtures, makeFixture, run } from "../tools/support.ts"

afterEach(cleanupFixtures)

const searchOf = (cache: SearchIndexCache) => {
  const tool = makeBuiltinTools(cache).find((candidate) => candidate.name === "search")
  if (tool === undefined) throw new Error("no search tool")
  return tool
}

describe("the search index cache of a session", () => {
  it("is filled by that session's search tool only", async () => {
    const f = await makeFixture({ "src/a.ts": "export const zebraCount = 1\n" })
    const first = new SearchIndexCache()
    const second = new SearchIndexCache()
    expect(await run(searchOf(first), { query: "zebra" }, f.context)).toMatch(/^src\/a\.ts/)
    expect(first.roots).toEqual([f.workspace])
    expect(second.roots).toEqual([])
    expect(await run(searchOf(second), { query: "zebra" }, f.context)).toMatch(/^src\/a\.ts/)
    expect(second.roots).toEqual([f.workspace])
  })

  it("builds an index once per root, refreshes it on later calls, and builds afresh after clear", async () => {
    const f = await makeFixture({ "a.txt": "alpha\n" })
    const cache = new SearchIndexCache({ workers: 0 })
    const seen: Array<{ index: SearchIndex; fresh: boolean }> = []
    const use = (index: SearchIndex, fresh: boolean) => seen.push({ index, fresh })
    await withSearchIndex(cache, f.workspace, use)
    await withSearchIndex(cache, f.workspace, use)
    cache.clear()
    expect(cache.roots).toEqual([])
    await withSearchIndex(cache, f.workspace, use)
    expect(seen.map((entry) => entry.fresh)).toEqual([true, false, true])
    expect(seen[1]?.index).toBe(seen[0]?.index)
    expect(seen[2]?.index).not.toBe(seen[0]?.index)
  })

  it("keeps the four roots used last", async () => {
    const f = await makeFixture({})
    const roots: Array<string> = []
    for (const name of ["a", "b", "c", "d", "e"]) {
      const root = path.join(f.workspace, name)
      await fs.mkdir(root)
      await fs.writeFile(path.join(root, "x.txt"), `${name}\n`)
      roots.push(root)
    }
    const cache = new SearchIndexCache({ workers: 0 })
    for (const root of roots.slice(0, 4)) await withSearchIndex(cache, root, () => undefined)
    await withSearchIndex(cache, roots[0] as string, () => undefined)
    await withSearchIndex(cache, roots[4] as string, () => undefined)
    expect(cache.roots).toEqual([roots[2], roots[3], roots[0], roots[4]])
  })

  it("drops an index whose build failed, so the next call tries again", async () => {
    const cache = new SearchIndexCache()
    let builds = 0
    const failing = () => {
      builds++
      return Promise.reject(new Error("disk gone"))
    }
    await expect(cache.run("/nowhere", failing, () => undefined)).rejects.toThrow("disk gone")
    await expect(cache.run("/nowhere", failing, () => undefined)).rejects.toThrow("disk gone")
    expect(builds).toBe(2)
    expect(cache.roots).toEqual([])
  })
})
