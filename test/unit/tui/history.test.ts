import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { historyFile, historyNext, historyPrevious, historyRecord, loadHistory, makeHistory, saveHistory } from "../../../src/tui/history.ts"
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
    await saveHistory(file, "/some/workspace", ["x", "multi\nline"])
    expect(loadHistory(file)).toEqual(["x", "multi\nline"])
    expect(fs.statSync(file).mode & 0o777).toBe(0o600)
    expect(path.dirname(file)).toBe(path.join(home, "history"))
  })
})
