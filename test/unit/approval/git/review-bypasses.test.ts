/**
 * The bypasses of the git read check an independent review found (F1–F7), each reproduced: the
 * real git runs the planted program (a marker file appears), and the call asks under
 * `--approval plan` and `default`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, it } from "vitest"
import { expectAsks, expectGitRunsIt } from "../../../support/git-attacks.ts"
import { makeRepo } from "../../../support/git-repos.ts"
import { tempDir } from "../../../support/temp.ts"

interface Box {
  /** The workspace: a clean repository with one committed file. */
  readonly ws: string
  /** Where a planted program leaves its mark. */
  readonly marker: string
  /** A shell command that leaves the mark. */
  readonly plant: string
}

const box = async (): Promise<Box> => {
  const base = await tempDir("crystal-bypass-")
  const ws = makeRepo(path.join(base, "ws"), { "top.txt": "top\n" })
  const marker = path.join(base, "marker")
  return { ws, marker, plant: `touch ${marker}; false` }
}

describe("F1: a backslash inside a config comment does not continue the line", () => {
  it("asks when a key hides on the line after a commented backslash", async () => {
    const b = await box()
    fs.appendFileSync(path.join(b.ws, ".git", "config"), `[core]\n\tquotepath = false ; \\\n\tfsmonitor = "${b.plant}"\n`)
    expectGitRunsIt(b.marker, b.ws, "git status")
    expectAsks(b.ws, "git status", /sets core\.fsmonitor/)
  })
})
