import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import {
  changePromptAttachment,
  discoverPromptAttachments,
  listPromptAttachments,
  selectPromptAttachments,
  type AttachmentFlags,
  type PromptPaths
} from "../../../src/prompts/attachments.ts"
import { resolvePromptSelection, type PromptFlags } from "../../../src/prompts/selection.ts"
import { tempDir, writeTree } from "../../support/temp.ts"

interface Fixture {
  readonly paths: PromptPaths
  readonly homeDir: string
  readonly workspaceDir: string
}

/** A home and a workspace with the given attachment files ("h:" under the home's, "w:" under the workspace's). */
const fixture = async (files: Readonly<Record<string, string>>): Promise<Fixture> => {
  const root = await tempDir()
  const paths = { home: path.join(root, "home"), workspaceDir: path.join(root, "ws", ".crystal") }
  const homeDir = path.join(paths.home, "prompt-attachments")
  const workspaceDir = path.join(paths.workspaceDir, "prompt-attachments")
  await fs.mkdir(path.join(root, "ws"), { recursive: true })
  for (const [name, content] of Object.entries(files)) {
    const [where, rest] = [name.slice(0, 2), name.slice(2)]
    await writeTree(where === "w:" ? workspaceDir : homeDir, { [rest]: content })
  }
  return { paths, homeDir, workspaceDir }
}

const read = (file: string) => fs.readFile(file, "utf8")
const run = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(effect)
const fail = <A, E>(effect: Effect.Effect<A, E>) => Effect.runPromise(Effect.flip(effect))
const on: AttachmentFlags = { attachmentsOff: false, forcedAttachments: [] }
const ids = (paths: PromptPaths, flags: AttachmentFlags = on) => selectPromptAttachments(paths, flags).active.map((active) => active.attachment.id)
const identity = (text: string) => text

describe("prompt attachment discovery", () => {
  it("sorts the enabled ones by order then name, a missing order last", async () => {
    const { paths } = await fixture({
      "h:zeta/prompt.json": '{"enabled":true,"order":0}',
      "h:beta/prompt.json": '{"enabled":true}',
      "h:alpha/prompt.json": '{"enabled":true}',
      "h:gamma/prompt.json": '{"enabled":true,"order":1}',
      "h:delta/prompt.json": '{"enabled":true,"order":1}',
      "h:off/prompt.json": '{"enabled":false,"order":-1}',
      "h:unset/prompt.json": '{"order":-5}'
    })
    expect(ids(paths)).toEqual(["zeta", "delta", "gamma", "alpha", "beta"])
  })

  it("lets the workspace copy win whole, enabled and order included", async () => {
    const { paths } = await fixture({
      "h:a/prompt.json": '{"enabled":true,"order":0}',
      "h:a/work.md": "home a",
      "h:b/prompt.json": '{"enabled":true,"order":1}',
      "h:b/work.md": "home b",
      "w:a/prompt.json": '{"enabled":true,"order":5,"name":"Workspace A"}',
      "w:b/prompt.json": '{"enabled":false,"order":0}',
      "w:b/work.md": "workspace b"
    })
    const selection = selectPromptAttachments(paths, on)
    expect(selection.active.map((active) => [active.attachment.id, active.attachment.source, active.attachment.title])).toEqual([
      ["a", "workspace", "Workspace A"]
    ])
    // The workspace `a` has no work.md: the home one does not fill in.
    expect(selection.texts("work", identity)).toEqual([])
  })

  it("does not let a skipped workspace directory hide the home one", async () => {
    const { paths } = await fixture({
      "h:a/prompt.json": '{"enabled":true}',
      "h:a/work.md": "home a",
      "w:a/prompt.json": '{"enabled":"yes"}'
    })
    const selection = selectPromptAttachments(paths, on)
    expect(selection.texts("work", identity)).toEqual(["home a"])
    expect(selection.notes.join("\n")).toContain(`"enabled" must be true or false (got "yes"); prompt attachment 'a' skipped.`)
  })

  it("reads only the workspace root, not parent directories", async () => {
    const root = await tempDir()
    await writeTree(root, { "parent/.crystal/prompt-attachments/p/prompt.json": '{"enabled":true}', "parent/child/x": "" })
    const found = discoverPromptAttachments({ home: path.join(root, "home"), workspaceDir: path.join(root, "parent", "child", ".crystal") })
    expect(found.attachments).toEqual([])
  })

  it("skips broken manifests with a note and never changes them", async () => {
    const { paths, homeDir } = await fixture({
      "h:good/prompt.json": '{"enabled":true}',
      "h:json/prompt.json": "{ nope",
      "h:order/prompt.json": '{"enabled":true,"order":"1"}',
      "h:none/work.md": "no manifest"
    })
    const before = await Promise.all(["json", "order"].map((id) => read(path.join(homeDir, id, "prompt.json"))))
    const discovery = discoverPromptAttachments(paths)
    expect(discovery.attachments.map((attachment) => attachment.id)).toEqual(["good"])
    expect(discovery.notes).toHaveLength(3)
    expect(discovery.notes.join("\n")).toContain(`${path.join(homeDir, "none", "prompt.json")}: missing; prompt attachment 'none' skipped.`)
    await run(changePromptAttachment(paths, "disable", "good", { idle: true }))
    await run(changePromptAttachment(paths, "enable", "good", { idle: true }))
    expect((await fail(changePromptAttachment(paths, "enable", "order", { idle: true }))).message).toContain("cannot be used")
    expect(await Promise.all(["json", "order"].map((id) => read(path.join(homeDir, id, "prompt.json"))))).toEqual(before)
    expect(await fs.readdir(path.join(homeDir, "none"))).toEqual(["work.md"])
  })
})

describe("attachment texts", () => {
  it("returns each active attachment's text for the prompt, bound, in order, empty files counting as missing", async () => {
    const { paths } = await fixture({
      "h:one/prompt.json": '{"enabled":true,"order":0}',
      "h:one/work.md": "One for {{mode}}\n",
      "h:one/plan.md": "",
      "h:one/plan.txt": "One plan (txt)\n\n",
      "h:two/prompt.json": '{"enabled":true,"order":1}',
      "h:two/work.txt": "Two {{unknown}}",
      "h:two/review.md": "\n",
      "h:three/prompt.json": '{"enabled":false}',
      "h:three/work.md": "Three"
    })
    const selection = selectPromptAttachments(paths, on)
    const bind = (text: string) => text.replaceAll("{{mode}}", "work")
    expect(selection.texts("work", bind)).toEqual(["One for work\n", "Two {{unknown}}"])
    expect(selection.texts("plan", bind)).toEqual(["One plan (txt)\n\n"])
    expect(selection.texts("review", bind)).toEqual([])
  })

  it("attaches nothing with --prompt-attachments off", async () => {
    const { paths } = await fixture({ "h:one/prompt.json": '{"enabled":true}', "h:one/work.md": "One" })
    const selection = selectPromptAttachments(paths, { attachmentsOff: true, forcedAttachments: [] })
    expect(selection.texts("work", identity)).toEqual([])
    expect(selection.off).toBe(true)
  })

  it("appends forced names after the enabled ones, once, keeping an enabled one in its place", async () => {
    const { paths } = await fixture({
      "h:a/prompt.json": '{"enabled":true,"order":0}',
      "h:b/prompt.json": '{"enabled":true,"order":1}',
      "h:c/prompt.json": '{"enabled":false}',
      "w:d/prompt.json": "{}"
    })
    const selection = selectPromptAttachments(paths, { attachmentsOff: false, forcedAttachments: ["d", "a", "c", "d"] })
    expect(selection.active.map((active) => [active.attachment.id, active.appended])).toEqual([
      ["a", false],
      ["b", false],
      ["d", true],
      ["c", true]
    ])
  })

  it("skips a forced name the current workspace no longer has, with a note", async () => {
    const { paths } = await fixture({ "w:d/prompt.json": "{}", "w:d/work.md": "D" })
    const moved = { ...paths, workspaceDir: path.join(path.dirname(paths.workspaceDir), "elsewhere", ".crystal") }
    const selection = selectPromptAttachments(moved, { attachmentsOff: false, forcedAttachments: ["d"] })
    expect(selection.active).toEqual([])
    expect(selection.notes).toEqual([
      `The prompt attachment 'd' given with --prompt-attachment is not in ${path.join(paths.home, "prompt-attachments")} or ${path.join(moved.workspaceDir, "prompt-attachments")}; skipped.`
    ])
  })
})

describe("changing attachments", () => {
  it("enable appends and renumbers the enabled ones 0..n-1, touching only enabled and order", async () => {
    const { paths, homeDir, workspaceDir } = await fixture({
      "h:a/prompt.json": '{\n  "order": 7,\n  "name": "A",\n  "enabled": true,\n  "x": {"order": 1}\n}\n',
      "h:b/prompt.json": '{"enabled":true}',
      "w:c/prompt.json": '{"enabled":true,"order":3,"keep":[1,2]}',
      "h:new/prompt.json": '{"description":"New","enabled":false,"order":0,"zz":true}'
    })
    // Current order: c (3), a (7), b (no order).
    const result = await run(changePromptAttachment(paths, "enable", "new", { idle: true }))
    expect(await read(path.join(workspaceDir, "c", "prompt.json"))).toBe('{"enabled":true,"order":0,"keep":[1,2]}')
    expect(await read(path.join(homeDir, "a", "prompt.json"))).toBe('{\n  "order": 1,\n  "name": "A",\n  "enabled": true,\n  "x": {"order": 1}\n}\n')
    expect(await read(path.join(homeDir, "b", "prompt.json"))).toBe('{"enabled":true,"order":2}')
    expect(await read(path.join(homeDir, "new", "prompt.json"))).toBe('{"description":"New","enabled":true,"order":3,"zz":true}')
    expect(result.written).toHaveLength(4)
    expect(ids(paths)).toEqual(["c", "a", "b", "new"])
  })

  it("disable sets enabled false and renumbers nothing", async () => {
    const { paths, homeDir } = await fixture({
      "h:a/prompt.json": '{"enabled":true,"order":0}',
      "h:b/prompt.json": '{"enabled":true,"order":1}',
      "h:c/prompt.json": '{"enabled":true,"order":2}'
    })
    const result = await run(changePromptAttachment(paths, "disable", "b", { idle: true }))
    expect(result.written).toEqual([path.join(homeDir, "b", "prompt.json")])
    expect(await read(path.join(homeDir, "b", "prompt.json"))).toBe('{"enabled":false,"order":1}')
    expect(await read(path.join(homeDir, "c", "prompt.json"))).toBe('{"enabled":true,"order":2}')
    expect((await run(changePromptAttachment(paths, "disable", "b", { idle: true }))).written).toEqual([])
    expect((await run(changePromptAttachment(paths, "enable", "a", { idle: true }))).written).toEqual([])
  })

  it("up and down swap within the order and rewrite it", async () => {
    const { paths, homeDir } = await fixture({
      "h:a/prompt.json": '{"enabled":true,"order":10}',
      "h:b/prompt.json": '{"enabled":true,"order":20}',
      "h:c/prompt.json": '{"enabled":true}',
      "h:d/prompt.json": '{"enabled":false,"order":15}'
    })
    await run(changePromptAttachment(paths, "up", "c", { idle: true }))
    expect(ids(paths)).toEqual(["a", "c", "b"])
    expect(await read(path.join(homeDir, "c", "prompt.json"))).toBe('{"enabled":true,"order":1}')
    expect(await read(path.join(homeDir, "d", "prompt.json"))).toBe('{"enabled":false,"order":15}')
    await run(changePromptAttachment(paths, "down", "a", { idle: true }))
    expect(ids(paths)).toEqual(["c", "a", "b"])
    expect((await run(changePromptAttachment(paths, "up", "c", { idle: true }))).message).toContain("already first")
    expect((await run(changePromptAttachment(paths, "down", "b", { idle: true }))).message).toContain("already last")
    expect((await fail(changePromptAttachment(paths, "up", "d", { idle: true }))).message).toContain("is not enabled")
  })

  it("changes the winning copy by default, or the one --source names", async () => {
    const { paths, homeDir, workspaceDir } = await fixture({ "h:a/prompt.json": '{"enabled":true}', "w:a/prompt.json": '{"enabled":true}' })
    await run(changePromptAttachment(paths, "disable", "a", { idle: true }))
    expect(await read(path.join(workspaceDir, "a", "prompt.json"))).toBe('{"enabled":false}')
    expect(await read(path.join(homeDir, "a", "prompt.json"))).toBe('{"enabled":true}')
    const home = await run(changePromptAttachment(paths, "disable", "a", { idle: true, source: "home" }))
    expect(home.message).toContain("takes precedence")
    expect(await read(path.join(homeDir, "a", "prompt.json"))).toBe('{"enabled":false}')
    const missing = await fail(changePromptAttachment(paths, "enable", "zz", { idle: true, source: "workspace" }))
    expect(missing.message).toBe(`No prompt attachment 'zz' in ${workspaceDir} (available: a).`)
  })

  it("refuses every change, without writing, when off, forced or busy", async () => {
    const { paths, homeDir } = await fixture({
      "h:a/prompt.json": '{"enabled":true,"order":0}',
      "h:b/prompt.json": '{"enabled":true,"order":1}',
      "h:c/prompt.json": '{"enabled":false}'
    })
    const snapshot = () => Promise.all(["a", "b", "c"].map((id) => read(path.join(homeDir, id, "prompt.json"))))
    const before = await snapshot()
    const off = { attachmentsOff: true, forcedAttachments: [] }
    const forced = { attachmentsOff: false, forcedAttachments: ["c", "a"] }
    for (const action of ["enable", "disable", "up", "down"] as const) {
      expect((await fail(changePromptAttachment(paths, action, "b", { idle: true, flags: off }))).message).toContain("--prompt-attachments off")
      expect((await fail(changePromptAttachment(paths, action, "c", { idle: true, flags: forced }))).message).toContain(
        `'c' is attached by --prompt-attachment for this process; ${action} is refused`
      )
      expect((await fail(changePromptAttachment(paths, action, "a", { idle: true, flags: forced }))).message).toContain("--prompt-attachment")
      expect((await fail(changePromptAttachment(paths, action, "b", { idle: false }))).message).toContain("A turn is running")
    }
    expect(await snapshot()).toEqual(before)
    // Other names can still change while some are forced.
    await run(changePromptAttachment(paths, "disable", "b", { idle: true, flags: forced }))
    expect(await read(path.join(homeDir, "b", "prompt.json"))).toBe('{"enabled":false,"order":1}')
  })
})

describe("listing attachments", () => {
  it("lists attaching ones first, with source, forced marks and positions; listing works when off", async () => {
    const { paths } = await fixture({
      "h:a/prompt.json": '{"enabled":true,"order":1,"name":"Alpha","description":"First"}',
      "h:b/prompt.json": '{"enabled":false}',
      "h:c/prompt.json": '{"enabled":false}',
      "h:w/prompt.json": '{"enabled":true}',
      "w:w/prompt.json": '{"enabled":true,"order":0}',
      "w:w/review.md": "R"
    })
    const listing = listPromptAttachments(paths, { attachmentsOff: false, forcedAttachments: ["c"] })
    expect(listing.rows.map((row) => [row.id, row.source, row.enabled, row.forced, row.position])).toEqual([
      ["w", "workspace", true, false, 0],
      ["a", "home", true, false, 1],
      ["c", "home", false, true, 2],
      ["b", "home", false, false, undefined]
    ])
    expect(listing.rows[1]).toMatchObject({ title: "Alpha", description: "First" })
    expect(listing.rows[0]?.files.review?.text).toBe("R")
    const off = listPromptAttachments(paths, { attachmentsOff: true, forcedAttachments: [] })
    expect(off.rows.map((row) => [row.id, row.position])).toEqual([
      ["w", undefined],
      ["a", undefined],
      ["b", undefined],
      ["c", undefined]
    ])
    const home = listPromptAttachments(paths, undefined, { source: "home" })
    expect(home.rows.find((row) => row.id === "w")).toMatchObject({ source: "home", shadowed: true })
  })
})

describe("attachment flags at start-up", () => {
  const flags = (promptAttachments: "on" | "off", promptAttachment: ReadonlyArray<string>): PromptFlags => ({
    promptSet: undefined,
    promptAttachments,
    promptAttachment
  })
  const check = (paths: PromptPaths, value: PromptFlags) => Effect.runPromise(Effect.either(resolvePromptSelection(value, paths)))

  it("deduplicates forced names in first-seen order", async () => {
    const { paths } = await fixture({ "h:a/prompt.json": "{}", "w:b/prompt.json": "{}" })
    expect(await check(paths, flags("on", ["b", "a", "b"]))).toEqual(
      Either.right({ promptSet: undefined, attachmentsOff: false, forcedAttachments: ["b", "a"] })
    )
    expect(await check(paths, flags("off", []))).toEqual(Either.right({ promptSet: undefined, attachmentsOff: true, forcedAttachments: [] }))
  })

  it("refuses off with forced names, unknown names and broken ones", async () => {
    const { paths, homeDir, workspaceDir } = await fixture({ "h:a/prompt.json": "{}", "h:broken/prompt.json": '{"order":1.5}' })
    const message = async (value: PromptFlags) => {
      const result = await check(paths, value)
      return Either.isLeft(result) ? result.left.message : "accepted"
    }
    expect(await message(flags("off", ["a"]))).toBe("--prompt-attachment cannot be combined with --prompt-attachments off")
    expect(await message(flags("on", ["a", "zz"]))).toBe(`--prompt-attachment: no prompt attachment 'zz' in ${homeDir} or ${workspaceDir} (available: a)`)
    expect(await message(flags("on", ["broken"]))).toBe(
      `--prompt-attachment: the prompt attachment 'broken' cannot be used: ${path.join(homeDir, "broken", "prompt.json")}: "order" must be an integer (got 1.5)`
    )
    expect(await message(flags("on", ["-x"]))).toContain("is not a prompt attachment name")
  })
})
