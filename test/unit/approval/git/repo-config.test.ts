/**
 * The repository-config check behind git reads (src/approval/git/repo-config.ts) reads .git files
 * itself, before any command runs: a FIFO planted as .git/config must not hang it (a guard opens
 * the FIFO after a while, so a reader that blocks gets an empty text and the test fails instead
 * of hanging), and a config git could not read as a file makes the read ask.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { repositoryRunsPrograms } from "../../../../src/approval/git/repo-config.ts"
import { makeFifo, unblockFifoAfter, type FifoGuard } from "../../../support/fifo.ts"
import { tempDir, writeTree } from "../../../support/temp.ts"

const guards: Array<FifoGuard> = []
afterEach(() => {
  for (const guard of guards.splice(0)) guard.stop()
})

/** A real repository (git init): the check only looks at a .git git itself would use. */
const gitRepository = async (): Promise<string> => {
  const ws = await tempDir()
  execFileSync("git", ["init", "-q", ws])
  return ws
}

describe("repositoryRunsPrograms", () => {
  it("finds a program-running key in a regular .git/config, and nothing in a plain one", async () => {
    const ws = await gitRepository()
    await writeTree(ws, { ".git/config": "[core]\n\tbare = false\n" })
    expect(repositoryRunsPrograms(ws)).toBeUndefined()
    await writeTree(ws, { ".git/config": "[core]\n\tfsmonitor = touch /tmp/x\n" })
    expect(repositoryRunsPrograms(ws)).toBe("the repository config sets core.fsmonitor, which runs a program")
  })

  it("refuses a FIFO .git/config without opening it, and says why", async () => {
    const ws = await gitRepository()
    const config = path.join(ws, ".git", "config")
    await fs.rm(config)
    makeFifo(config)
    guards.push(unblockFifoAfter(config, 5))
    expect(repositoryRunsPrograms(ws)).toBe("the repository has a config Crystal cannot read")
  })
})
