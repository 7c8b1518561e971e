import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { openCheckpointStore } from "../../../src/checkpoints/open.ts"
import { defaultCheckpointSettings } from "../../../src/checkpoints/store.ts"
import { fixture, run } from "./support.ts"

const savedHome = process.env["HOME"]
afterEach(() => {
  process.env["HOME"] = savedHome
})

const reasonFor = async (workspace: string, crystalHome: string): Promise<string | undefined> => {
  const opened = await run(openCheckpointStore(workspace, crystalHome, defaultCheckpointSettings))
  return "_tag" in opened ? opened.reason : undefined
}

describe("workspaces that get no checkpoints", () => {
  it("refuses the home folder (by its real path, so a link to it too), with a one-line reason", async () => {
    const { workspace, home } = await fixture()
    process.env["HOME"] = workspace
    const reason = await reasonFor(workspace, home)
    expect(reason).toBe(`checkpoints are off: the workspace is your home folder (${workspace}); start Crystal in a project folder`)
    const link = path.join(path.dirname(workspace), "home-link")
    fs.symlinkSync(workspace, link)
    expect(await reasonFor(link, home)).toMatch(/your home folder/)
    expect(fs.readdirSync(home)).toEqual([])
  })

  it("refuses /", async () => {
    const { home } = await fixture()
    expect(await reasonFor("/", home)).toMatch(/^checkpoints are off: the workspace is \/ \(the whole file system\)/)
  })

  it("refuses a folder holding the Crystal home, and a folder inside it", async () => {
    const { workspace } = await fixture()
    const crystalHome = path.join(workspace, ".crystal")
    fs.mkdirSync(crystalHome)
    expect(await reasonFor(workspace, crystalHome)).toBe(`checkpoints are off: the workspace holds the Crystal home (${crystalHome})`)
    const inside = path.join(crystalHome, "plans")
    fs.mkdirSync(inside)
    expect(await reasonFor(inside, crystalHome)).toBe(`checkpoints are off: the workspace is inside the Crystal home (${crystalHome})`)
  })

  it("a workspace that cannot be read, or a store that cannot be made, is a refusal too (never a failure)", async () => {
    const { workspace, home } = await fixture()
    expect(await reasonFor(path.join(workspace, "gone"), home)).toMatch(/^checkpoints are off: the workspace .*gone cannot be read/)
    fs.writeFileSync(path.join(home, "checkpoints"), "a file where the folder goes")
    expect(await reasonFor(workspace, home)).toMatch(/^checkpoints are off: cannot prepare the checkpoint store: .*\n?/)
    expect((await reasonFor(workspace, home))?.includes("\n")).toBe(false)
  })
})
