import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { historyFile, historyNext, historyPrevious, historyRecord, loadHistory, makeHistory, appendHistory } from "../../../src/tui/history.ts"
import { tempDir } from "../../support/temp.ts"

describe("prompt history", () => {
  it("walks back and forth and gives the draft back", () => {
    const history = makeHistory(["one", "two"])
    const back = historyPrevious(history, "draft")
    expect(back?.text).toBe("two")
    const older = historyPrevious(back?.history ?? history, "two")
    expect(older?.text).toBe("one")
    expect(historyPrevious(older?.history ?? history, "one")).toBeUndefined()
    const forward = historyNext(older?.history ?? history)
    expect(forward?.text).toBe("two")
    expect(historyNext(forward?.history ?? history)?.text).toBe("draft")
  })

  it("records prompts once and skips blank ones", () => {
    let history = makeHistory([])
    for (const text of ["a", "a", "  ", "b"]) history = historyRecord(history, text)
    expect(history.entries).toEqual(["a", "b"])
  })

  it("persists per workspace, owner-only", async () => {
    const home = await tempDir("crystal-history-")
    const file = historyFile(home, "/some/workspace")
    expect(historyFile(home, "/other")).not.toBe(file)
    expect(loadHistory(file)).toEqual([])
    await appendHistory(file, "/some/workspace", "x")
    await appendHistory(file, "/some/workspace", "multi\nline")
    expect(loadHistory(file)).toEqual(["x", "multi\nline"])
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(path.dirname(file)).toBe(path.join(home, "history"))
  })

  it("merges with what another process wrote meanwhile, and leaves a file that does not parse alone", async () => {
    const home = await tempDir("crystal-history-")
    const file = historyFile(home, "/w")
    await appendHistory(file, "/w", "mine")
    fs.writeFileSync(file, JSON.stringify({ workspace: "/w", entries: ["mine", "theirs"] }))
    void appendHistory(file, "/w", "one")
    await appendHistory(file, "/w", "two")
    expect(loadHistory(file)).toEqual(["mine", "theirs", "one", "two"])
    fs.writeFileSync(file, "{ broken")
    await appendHistory(file, "/w", "three")
    expect(fs.readFileSync(file, "utf8")).toBe("{ broken")
    expect(loadHistory(file)).toEqual([])
  })
})
