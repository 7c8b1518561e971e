/**
 * The repository-config check behind git reads (src/approval/git-repo-config.ts) reads .git files
 * itself, before any command runs: a FIFO planted as .git/config must not hang it (a guard opens
 * the FIFO after a while, so a reader that blocks gets an empty text and the test fails instead
 * of hanging), and a config git could not read as a file makes the read ask.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { repositoryRunsPrograms } from "../../../src/approval/git-repo-config.ts"
import { makeFifo, unblockFifoAfter, type FifoGuard } from "../../support/fifo.ts"
import { tempDir, writeTree } from "../../support/temp.ts"

const guards: Array<FifoGuard> = []
afterEach(() => {
  for (const guard of guards.splice(0)) guard.stop()
})

describe("repositoryRunsPrograms", () => {
  it("finds a program-running key in a regular .git/config, and nothing in a plain one", async () => {
    const ws = await tempDir()
    await writeTree(ws, { ".git/config": "[core]\n\tbare = false\n" })
    expect(repositoryRunsPrograms(ws)).toBeUndefined()
    await writeTree(ws, { ".git/config": "[core]\n\tfsmonitor = touch /tmp/x\n" })
    expect(repositoryRunsPrograms(ws)).toBe("the repository config sets core.fsmonitor, which runs a program")
  })

  it("refuses a FIFO .git/config without opening it, and says why", async () => {
    const ws = await tempDir()
    await fs.mkdir(path.join(ws, ".git"))
    const config = path.join(ws, ".git", "config")
    makeFifo(config)
    guards.push(unblockFifoAfter(config, 5))
    expect(repositoryRunsPrograms(ws)).toBe(`the repository config ${config} is a FIFO (named pipe), not a regular file`)
  })
})
