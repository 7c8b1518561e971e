import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { crystalHomeRoot, workspaceRoot } from "../../../src/files/confined-read.ts"
import { builtinPrompts } from "../../../src/prompts/builtin/index.ts"
import { composePrompt } from "../../../src/prompts/compose.ts"
import { promptNames, type PromptName } from "../../../src/prompts/names.ts"
import { resolvePrompt, type SetLookup } from "../../../src/prompts/resolver.ts"
import { tempDir } from "../../support/temp.ts"

type State = "missing" | "empty" | "present"
const states: ReadonlyArray<State> = ["missing", "empty", "present"]

const setup = async (name: PromptName, set: State, home: State, workspace: State, extension = ".md") => {
  const root = await tempDir()
  const homePrompts = path.join(root, "home")
  const workspacePrompts = path.join(root, "ws")
  await fs.mkdir(homePrompts)
  await fs.mkdir(workspacePrompts)
  const write = async (dir: string, state: State, text: string) => {
    if (state !== "missing") await fs.writeFile(path.join(dir, `${name}${extension}`), state === "empty" ? "  \n" : text)
  }
  await write(homePrompts, home, "from home")
  await write(workspacePrompts, workspace, "from workspace")
  const lookup: SetLookup = () => (set === "present" ? { set: "team", file: "/sets/team/x.md", text: "from set" } : undefined)
  return { homePrompts: { dir: homePrompts, root: crystalHomeRoot(root) }, workspacePrompts: { dir: workspacePrompts, root: workspaceRoot(root) }, set: lookup }
}

const expected = (set: State, home: State, workspace: State): string =>
  workspace === "present" ? "from workspace" : home === "present" ? "from home" : set === "present" ? "from set" : "builtin"

const cases = states.flatMap((set) => states.flatMap((home) => states.map((workspace) => [set, home, workspace] as const)))

describe("prompt precedence (SPEC P4)", () => {
  it.each(promptNames)("%s: built-in < set < home file < workspace file, empty files falling back", async (name) => {
    for (const [set, home, workspace] of cases) {
      const resolved = resolvePrompt(name, await setup(name, set, home, workspace))
      const want = expected(set, home, workspace)
      expect(resolved.text, `${set}/${home}/${workspace}`).toBe(want === "builtin" ? builtinPrompts[name].text : want)
      expect(resolved.source.kind).toBe(want === "builtin" ? "builtin" : want.slice(5) === "set" ? "set" : want.slice(5))
    }
  })

  it("accepts NAME.txt", async () => {
    const resolved = resolvePrompt("review", await setup("review", "missing", "present", "missing", ".txt"))
    expect(resolved).toMatchObject({ text: "from home", source: { kind: "home", file: expect.stringMatching(/review\.txt$/) } })
  })
})

describe("composition (SPEC P8)", () => {
  it("binds the body, then appends the attachments bound the same way", async () => {
    const locations = await setup("work", "missing", "missing", "present")
    await fs.writeFile(path.join(locations.workspacePrompts.dir, "work.md"), "Work in {{workspace}}.\n")
    const composed = composePrompt("work", new Map([["workspace", "/w"]]), locations, (prompt, bind) => [bind(`[${prompt}] {{workspace}} {{unknown}}\n`)])
    expect(composed.text).toBe("Work in /w.\n\n[work] /w {{unknown}}\n")
    expect(composed.body.source.kind).toBe("workspace")
  })
})
