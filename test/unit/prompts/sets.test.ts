import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import { promptNames } from "../../../src/prompts/names.ts"
import { resolvePromptSelection } from "../../../src/prompts/selection.ts"
import {
  disablePromptSet,
  discoverPromptSets,
  enablePromptSet,
  listPromptSets,
  selectPromptSet,
  switchPromptSet
} from "../../../src/prompts/sets.ts"
import { tempDir, writeTree } from "../../support/temp.ts"

/** A home with `files` under promptsets/. */
const home = async (files: Readonly<Record<string, string>>): Promise<string> => {
  const dir = await tempDir()
  await writeTree(path.join(dir, "promptsets"), files)
  return dir
}

const manifestOf = (dir: string, id: string) => fs.readFile(path.join(dir, "promptsets", id, "prompt.json"), "utf8")

/** Every file under promptsets/, with its bytes: to show that nothing was touched. */
const snapshot = async (dir: string): Promise<Record<string, string>> => {
  const out: Record<string, string> = {}
  const walk = async (at: string): Promise<void> => {
    for (const entry of await fs.readdir(at, { withFileTypes: true })) {
      const full = path.join(at, entry.name)
      if (entry.isDirectory()) await walk(full)
      else out[path.relative(dir, full)] = await fs.readFile(full, "utf8")
    }
  }
  await walk(path.join(dir, "promptsets"))
  return out
}

const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)
const fail = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.flip(effect))

describe("prompt set discovery", () => {
  it("skips missing, unreadable and invalid manifests with a note and leaves them byte-identical", async () => {
    const dir = await home({
      "good/prompt.json": '{"name":"Good","enabled":false}',
      "nomanifest/work.md": "w",
      "badjson/prompt.json": '{"enabled": true,,}',
      "badfield/prompt.json": '{"enabled":"true"}',
      "toolong/prompt.json": JSON.stringify({ name: "x".repeat(81), enabled: true }),
      "1numeric/prompt.json": "{}",
      "default/prompt.json": '{"enabled":true}',
      ".hidden/prompt.json": "{}",
      "file.txt": "not a set"
    })
    await fs.mkdir(path.join(dir, "promptsets", "unreadable", "prompt.json"), { recursive: true })
    const before = await snapshot(dir)
    const discovery = discoverPromptSets(dir)
    expect(discovery.sets.map((set) => set.id)).toEqual(["good"])
    expect(discovery.skipped.map((entry) => entry.id).sort()).toEqual(
      ["1numeric", "badfield", "badjson", "default", "nomanifest", "toolong", "unreadable"].sort()
    )
    const notes = discovery.notes.join("\n")
    expect(notes).toContain(`${path.join(dir, "promptsets", "nomanifest", "prompt.json")}: missing; prompt set 'nomanifest' skipped.`)
    expect(notes).toContain(`${path.join(dir, "promptsets", "badjson", "prompt.json")}: not valid JSON at line 1, column 18`)
    expect(notes).toContain(`${path.join(dir, "promptsets", "badfield", "prompt.json")}: "enabled" must be true or false (got "true")`)
    expect(notes).toContain(`"name" must be at most 80 characters (got 81)`)
    expect(notes).toContain(`${path.join(dir, "promptsets", "unreadable", "prompt.json")}: is a directory, not a file`)
    expect(notes).toContain('"default" is the reserved name of the built-in prompts')
    // Switching and listing leave the broken ones alone.
    await run(enablePromptSet(dir, "good"))
    await run(enablePromptSet(dir, "default"))
    listPromptSets(dir)
    const after = await snapshot(dir)
    for (const file of Object.keys(before).filter((file) => !file.startsWith("good"))) expect(after[file]).toBe(before[file])
  })

  it.skipIf(process.getuid?.() === 0)("reports a manifest it may not read", async () => {
    const dir = await home({ "locked/prompt.json": "{}" })
    await fs.chmod(path.join(dir, "promptsets", "locked", "prompt.json"), 0o000)
    expect(discoverPromptSets(dir).notes.join("\n")).toContain("cannot be read (EACCES); prompt set 'locked' skipped.")
  })

  it("is empty, without a note, when ~/.crystal/promptsets does not exist, and creates nothing", async () => {
    const dir = await tempDir()
    expect(discoverPromptSets(dir)).toMatchObject({ sets: [], notes: [] })
    expect(listPromptSets(dir).rows.map((row) => row.id)).toEqual(["default"])
    await expect(run(enablePromptSet(dir, "default"))).resolves.toMatchObject({ written: [] })
    expect(await fs.readdir(dir)).toEqual([])
  })
})

describe("prompt set selection", () => {
  it("uses the built-ins when nothing is enabled", async () => {
    const dir = await home({ "a/prompt.json": "{}", "a/work.md": "A work" })
    const selection = selectPromptSet(dir, undefined)
    expect(selection).toMatchObject({ set: undefined, name: "default", forced: false, conflict: [], notes: [] })
    expect(selection.lookup("work")).toBeUndefined()
  })

  it("uses the enabled set's non-empty files and falls back per name", async () => {
    const dir = await home({
      "s/prompt.json": '{"enabled":true}',
      "s/work.md": "Set work\n",
      "s/plan.md": "",
      "s/plan.txt": "Plan from txt",
      "s/review.md": "  \n\n",
      "s/review.user.txt": "Review user txt",
      "s/topic.md": "Topic md",
      "s/topic.txt": "Topic txt (the .md wins)"
    })
    const selection = selectPromptSet(dir, undefined)
    expect(selection.name).toBe("s")
    const text = (name: (typeof promptNames)[number]) => selection.lookup(name)?.text
    expect(text("work")).toBe("Set work\n")
    expect(text("plan")).toBe("Plan from txt")
    expect(text("review")).toBeUndefined()
    expect(text("review.user")).toBe("Review user txt")
    expect(text("topic")).toBe("Topic md")
    for (const name of ["compaction.system", "compaction.user", "image.system", "image.user"] as const) expect(text(name)).toBeUndefined()
    expect(selection.lookup("plan")).toEqual({ set: "s", file: path.join(dir, "promptsets", "s", "plan.txt"), text: "Plan from txt" })
  })

  it("uses none of two hand-enabled sets and says so", async () => {
    const dir = await home({ "a/prompt.json": '{"enabled":true}', "b/prompt.json": '{"enabled":true}', "a/work.md": "A" })
    const selection = selectPromptSet(dir, undefined)
    expect(selection).toMatchObject({ set: undefined, name: "default", conflict: ["a", "b"] })
    expect(selection.lookup("work")).toBeUndefined()
    expect(selection.notes.join("\n")).toContain("Prompt sets 'a', 'b'")
    expect(selection.notes.join("\n")).toContain("None is used (built-in prompts)")
  })

  it("lets --prompt-set force a disabled set, or the built-ins, whatever the manifests say", async () => {
    const dir = await home({
      "a/prompt.json": '{"enabled":true}',
      "a/work.md": "A",
      "b/prompt.json": '{"enabled":false}',
      "b/work.md": "B"
    })
    expect(selectPromptSet(dir, "b")).toMatchObject({ name: "b", forced: true })
    expect(selectPromptSet(dir, "b").lookup("work")?.text).toBe("B")
    expect(selectPromptSet(dir, "default")).toMatchObject({ set: undefined, name: "default", forced: true })
    expect(selectPromptSet(dir, "default").lookup("work")).toBeUndefined()
  })

  it("falls back to the built-ins with a note when a forced set disappears", async () => {
    const dir = await home({ "b/prompt.json": "{}" })
    await fs.rm(path.join(dir, "promptsets", "b"), { recursive: true })
    const selection = selectPromptSet(dir, "b")
    expect(selection.set).toBeUndefined()
    expect(selection.notes.join("\n")).toContain("'b' given with --prompt-set is no longer in")
  })
})

describe("switching prompt sets", () => {
  it("enabling writes true on it and false on every other enabled set, nothing else changed", async () => {
    const dir = await home({
      "a/prompt.json": '{\n  "name": "A",\n  "enabled": true,\n  "zz": [1, {"k": "v"}],\n  "1": "numeric key"\n}\n',
      "b/prompt.json": '{"description":"B","unknown":null}',
      "c/prompt.json": '{"enabled":false,"name":"C"}',
      "d/prompt.json": '{"enabled":true}'
    })
    const result = await run(enablePromptSet(dir, "b"))
    expect(result.selected).toBe("b")
    expect(await manifestOf(dir, "a")).toBe('{\n  "name": "A",\n  "enabled": false,\n  "zz": [1, {"k": "v"}],\n  "1": "numeric key"\n}\n')
    expect(await manifestOf(dir, "b")).toBe('{"description":"B","unknown":null,"enabled":true}')
    expect(await manifestOf(dir, "c")).toBe('{"enabled":false,"name":"C"}')
    expect(await manifestOf(dir, "d")).toBe('{"enabled":false}')
    // Written false first, the target last: a crash in between leaves none enabled, never two.
    expect(result.written).toEqual(["a", "d", "b"].map((id) => path.join(dir, "promptsets", id, "prompt.json")))
    expect(selectPromptSet(dir, undefined).name).toBe("b")
  })

  it("choosing default, or disabling the enabled set, clears every enabled flag", async () => {
    const dir = await home({ "a/prompt.json": '{"enabled":true}', "b/prompt.json": '{"enabled":true,"x":1}', "c/prompt.json": "{}" })
    const disabled = await run(disablePromptSet(dir, "a"))
    expect(disabled.selected).toBe("default")
    expect(await manifestOf(dir, "a")).toBe('{"enabled":false}')
    expect(await manifestOf(dir, "b")).toBe('{"enabled":false,"x":1}')
    expect(await manifestOf(dir, "c")).toBe("{}")
    await run(enablePromptSet(dir, "a"))
    const cleared = await run(enablePromptSet(dir, "default"))
    expect(cleared).toMatchObject({ selected: "default", written: [path.join(dir, "promptsets", "a", "prompt.json")] })
    expect(await manifestOf(dir, "a")).toBe('{"enabled":false}')
  })

  it("disabling a set that is not enabled writes nothing", async () => {
    const dir = await home({ "a/prompt.json": '{"enabled":true}', "b/prompt.json": "{}" })
    const result = await run(disablePromptSet(dir, "b"))
    expect(result).toMatchObject({ selected: "a", written: [] })
    expect(await manifestOf(dir, "b")).toBe("{}")
  })

  it("refuses unknown and broken sets, and disabling default", async () => {
    const dir = await home({ "a/prompt.json": "{}", "broken/prompt.json": "{" })
    expect((await fail(enablePromptSet(dir, "zz"))).message).toBe(`No prompt set 'zz' in ${path.join(dir, "promptsets")} (available: default, a).`)
    expect((await fail(enablePromptSet(dir, "broken"))).message).toContain("The prompt set 'broken' cannot be used:")
    expect((await fail(disablePromptSet(dir, "default"))).message).toContain("cannot be disabled")
    expect(await manifestOf(dir, "broken")).toBe("{")
  })

  it("/promptset refuses, writing nothing, under --prompt-set or while a turn runs", async () => {
    const dir = await home({ "a/prompt.json": '{"enabled":true}', "b/prompt.json": "{}" })
    const forced = await fail(switchPromptSet(dir, "b", { forced: "a", idle: true }))
    expect(forced.message).toContain("fixed to 'a' by --prompt-set")
    expect((await fail(switchPromptSet(dir, "default", { forced: "default", idle: true }))).message).toContain("--prompt-set")
    expect((await fail(switchPromptSet(dir, "b", { forced: undefined, idle: false }))).message).toContain("A turn is running")
    expect(await manifestOf(dir, "a")).toBe('{"enabled":true}')
    expect(await manifestOf(dir, "b")).toBe("{}")
    await run(switchPromptSet(dir, "b", { forced: undefined, idle: true }))
    expect(await manifestOf(dir, "a")).toBe('{"enabled":false}')
    expect(await manifestOf(dir, "b")).toBe('{\n  "enabled": true\n}')
  })
})

describe("listing prompt sets", () => {
  it("lists default first, then each set with its flags and the source of Work, Plan and Review", async () => {
    const dir = await home({
      "terse/prompt.json": '{"name":"Terse","description":"Short answers","enabled":true}',
      "terse/work.md": "w",
      "terse/review.txt": "r",
      "plain/prompt.json": "{}"
    })
    const listing = listPromptSets(dir)
    expect(listing.selected).toBe("terse")
    expect(
      listing.rows.map((row) => ({
        id: row.id,
        title: row.title,
        enabled: row.enabled,
        selected: row.selected,
        work: row.sources.work?.file,
        plan: row.sources.plan?.file,
        review: row.sources.review?.file
      }))
    ).toEqual([
      { id: "default", title: "Built-in prompts", enabled: false, selected: false, work: undefined, plan: undefined, review: undefined },
      { id: "plain", title: "plain", enabled: false, selected: false, work: undefined, plan: undefined, review: undefined },
      {
        id: "terse",
        title: "Terse",
        enabled: true,
        selected: true,
        work: path.join(dir, "promptsets", "terse", "work.md"),
        plan: undefined,
        review: path.join(dir, "promptsets", "terse", "review.txt")
      }
    ])
    expect(listPromptSets(dir, "plain")).toMatchObject({ selected: "plain", forced: true })
  })
})

describe("--prompt-set at start-up", () => {
  const flags = (promptSet: string | undefined) => ({ promptSet, promptAttachments: "on" as const, promptAttachment: [] })
  const check = (dir: string, promptSet: string | undefined) =>
    Effect.runPromise(Effect.either(resolvePromptSelection(flags(promptSet), { home: dir, workspaceDir: path.join(dir, "ws", ".crystal") })))

  it("accepts default and existing sets, disabled ones included", async () => {
    const dir = await home({ "a/prompt.json": '{"enabled":false}' })
    expect(await check(dir, undefined)).toEqual(Either.right({ promptSet: undefined, attachmentsOff: false, forcedAttachments: [] }))
    expect(await check(dir, "default")).toEqual(Either.right({ promptSet: "default", attachmentsOff: false, forcedAttachments: [] }))
    expect(await check(dir, "a")).toEqual(Either.right({ promptSet: "a", attachmentsOff: false, forcedAttachments: [] }))
  })

  it("fails start-up on unknown, broken or malformed names", async () => {
    const dir = await home({ "a/prompt.json": "{}", "broken/prompt.json": "[]" })
    const message = async (name: string) => {
      const result = await check(dir, name)
      return Either.isLeft(result) ? result.left.message : "accepted"
    }
    expect(await message("nope")).toBe(`--prompt-set: no prompt set 'nope' in ${path.join(dir, "promptsets")} (available: default, a)`)
    expect(await message("broken")).toBe(
      `--prompt-set: the prompt set 'broken' cannot be used: ${path.join(dir, "promptsets", "broken", "prompt.json")}: expected a JSON object at the top level`
    )
    expect(await message("../a")).toContain("is not a prompt set name")
  })
})
