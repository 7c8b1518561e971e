import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { readConfined, readRegularFile, workspaceRoot, type ConfinedRead } from "../../../src/files/confined-read.ts"
import { makeFifo, unblockFifoAfter, type FifoGuard } from "../../support/fifo.ts"
import { tempDir, writeTree } from "../../support/temp.ts"

const secret = "MARKER-SECRET-7f3a"
const cap = 1024

const guards: Array<FifoGuard> = []
afterEach(() => {
  for (const guard of guards.splice(0)) guard.stop()
})

/** A workspace and, beside it, a folder outside it holding a secret file. */
const layout = async () => {
  const root = await tempDir("crystal-confined-")
  const workspace = path.join(root, "workspace")
  const outside = path.join(root, "outside")
  await writeTree(workspace, { "AGENTS.md": "inside text\n", "docs/guide.md": "the guide\n" })
  await writeTree(outside, { "secret.txt": `${secret}\n`, ".crystal/mcp.json": `{"secret": "${secret}"}` })
  return { root, workspace, outside, read: (relative: string, maxBytes = cap) => readConfined(workspaceRoot(workspace), path.join(workspace, relative), maxBytes) }
}

const refusal = (result: ConfinedRead): string => {
  expect(result._tag).toBe("Refused")
  expect(JSON.stringify(result)).not.toContain(secret)
  return result._tag === "Refused" ? result.note : ""
}

describe("readConfined", () => {
  it("reads a regular file inside the root, and one reached through a link that stays inside", async () => {
    const { workspace, read } = await layout()
    expect(read("AGENTS.md")).toEqual({ _tag: "Read", file: path.join(workspace, "AGENTS.md"), text: "inside text\n" })
    await fs.symlink("docs/guide.md", path.join(workspace, "CRYSTAL.md"))
    expect(read("CRYSTAL.md")).toMatchObject({ _tag: "Read", text: "the guide\n" })
    // A folder link inside the workspace is fine too.
    await fs.symlink("docs", path.join(workspace, "more"))
    expect(read("more/guide.md")).toMatchObject({ _tag: "Read", text: "the guide\n" })
  })

  it("reads inside a root given through a symbolic link to it", async () => {
    const { root, workspace } = await layout()
    const alias = path.join(root, "alias")
    await fs.symlink(workspace, alias)
    expect(readConfined(workspaceRoot(alias), path.join(alias, "AGENTS.md"), cap)).toMatchObject({ _tag: "Read", text: "inside text\n" })
  })

  it("refuses a symbolic link to a file outside the root, naming the file", async () => {
    const { workspace, outside, read } = await layout()
    await fs.rm(path.join(workspace, "AGENTS.md"))
    await fs.symlink(path.join(outside, "secret.txt"), path.join(workspace, "AGENTS.md"))
    expect(refusal(read("AGENTS.md"))).toBe(`${path.join(workspace, "AGENTS.md")} is a symbolic link to a file outside the workspace; it was not read`)
  })

  it("refuses a chain of links that ends outside", async () => {
    const { workspace, outside, read } = await layout()
    await fs.symlink(path.join(outside, "secret.txt"), path.join(workspace, "step2.md"))
    await fs.symlink("step2.md", path.join(workspace, "step1.md"))
    expect(refusal(read("step1.md"))).toContain("is a symbolic link to a file outside the workspace")
  })

  it("refuses a file whose folder is a link out of the root", async () => {
    const { workspace, outside, read } = await layout()
    await fs.symlink(path.join(outside, ".crystal"), path.join(workspace, ".crystal"))
    expect(refusal(read(".crystal/mcp.json"))).toBe(
      `${path.join(workspace, ".crystal", "mcp.json")} is reached through a symbolic link to a folder outside the workspace; it was not read`
    )
  })

  it("refuses links to /dev/stdin and /proc/self/environ", async () => {
    const { workspace, read } = await layout()
    await fs.symlink("/dev/stdin", path.join(workspace, "stdin.md"))
    await fs.symlink("/proc/self/environ", path.join(workspace, "environ.md"))
    expect(refusal(read("stdin.md"))).toContain("is a symbolic link to a file outside the workspace")
    expect(refusal(read("environ.md"))).toContain("is a symbolic link to a file outside the workspace")
  })

  it("refuses a FIFO without opening it (a guard unblocks a reader that would hang, and the test then fails)", async () => {
    const { workspace, read } = await layout()
    const fifo = path.join(workspace, "pipe.md")
    makeFifo(fifo)
    guards.push(unblockFifoAfter(fifo, 5))
    expect(refusal(read("pipe.md"))).toBe(`${fifo} is a FIFO (named pipe), not a regular file; it was not read`)
  })

  it("refuses a device, a directory, a loop of links and a file over the cap; a missing file is missing", async () => {
    const { workspace, read } = await layout()
    await fs.symlink("/dev/null", path.join(workspace, "null.md"))
    expect(refusal(read("null.md"))).toContain("outside the workspace")
    expect(refusal(read("docs"))).toContain("is a directory, not a file")
    await fs.symlink("loop-b", path.join(workspace, "loop-a"))
    await fs.symlink("loop-a", path.join(workspace, "loop-b"))
    expect(refusal(read("loop-a"))).toContain("is a loop of symbolic links")
    await fs.writeFile(path.join(workspace, "big.md"), "x".repeat(cap + 1))
    expect(refusal(read("big.md"))).toBe(`${path.join(workspace, "big.md")} is larger than 1 KiB (1025 bytes); it was not read`)
    await fs.writeFile(path.join(workspace, "exact.md"), "x".repeat(cap))
    expect(read("exact.md")).toMatchObject({ _tag: "Read" })
    expect(read("nothing.md")).toEqual({ _tag: "Missing", file: path.join(workspace, "nothing.md") })
    expect(read("AGENTS.md/below")).toMatchObject({ _tag: "Missing" })
    // A dangling link inside the workspace is just missing.
    await fs.symlink("gone.md", path.join(workspace, "dangling.md"))
    expect(read("dangling.md")).toMatchObject({ _tag: "Missing" })
  })

  it("refuses a path outside the root however it is spelled", async () => {
    const { workspace, outside } = await layout()
    const result = readConfined(workspaceRoot(workspace), path.join(workspace, "..", "outside", "secret.txt"), cap)
    expect(refusal(result)).toContain("is outside the workspace")
    expect(readConfined(workspaceRoot(workspace), path.join(outside, "secret.txt"), cap)._tag).toBe("Refused")
  })
})

describe("readRegularFile", () => {
  it("reads a regular file (links followed anywhere), refuses a FIFO without blocking, and is undefined when missing", async () => {
    const { workspace, outside } = await layout()
    await fs.symlink(path.join(outside, "secret.txt"), path.join(workspace, "link"))
    expect(readRegularFile(path.join(workspace, "link"), cap)).toEqual({ bytes: Buffer.from(`${secret}\n`) })
    const fifo = path.join(workspace, "pipe")
    makeFifo(fifo)
    guards.push(unblockFifoAfter(fifo, 5))
    expect(readRegularFile(fifo, cap)).toEqual({ refused: "is a FIFO (named pipe), not a regular file" })
    expect(readRegularFile(path.join(workspace, "missing"), cap)).toBeUndefined()
    await fs.writeFile(path.join(workspace, "big"), "x".repeat(cap + 1))
    expect(readRegularFile(path.join(workspace, "big"), cap)).toEqual({ refused: "is larger than 1 KiB" })
  })
})
