import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { storeDirFor } from "../../../src/checkpoints/open.ts"
import { git, makeRepo } from "../../support/git-repos.ts"
import { fixture, openStore, run, treeState, write } from "./support.ts"

describe("the store is Crystal's own", () => {
  it("a repository's .git (dirty index, stash, branches) is byte-identical after snapshots and a restore; hostile attributes and filters change no byte", async () => {
    const { workspace, home } = await fixture()
    const marker = path.join(path.dirname(workspace), "filter-ran")
    makeRepo(workspace, { "README.md": "hello\n", "crlf.txt": "one\r\ntwo\r\n", ".gitattributes": "* text eol=crlf filter=evil ident\n" })
    git(workspace, "config", "filter.evil.clean", `touch ${marker}; tr a-z A-Z`)
    git(workspace, "config", "filter.evil.smudge", `touch ${marker}; tr a-z A-Z`)
    git(workspace, "config", "core.fsmonitor", `touch ${marker}`)
    fs.rmSync(marker, { force: true })
    write(workspace, { "stashed.txt": "stash me\n" })
    git(workspace, "add", "stashed.txt")
    git(workspace, "stash", "-q")
    git(workspace, "branch", "feature")
    write(workspace, { "staged.txt": "staged\n", "lf.txt": "lf only\n$Id$\n" })
    git(workspace, "add", "staged.txt")
    fs.rmSync(marker, { force: true })
    const dotGit = treeState(path.join(workspace, ".git"))
    const before = treeState(workspace, { skip: [".git"] })

    const store = await openStore(workspace, home)
    const first = await run(store.snapshot())
    for (const name of ["crlf.txt", "lf.txt", ".gitattributes"]) {
      const entry = await run(store.read(first.id, name))
      expect(entry?.kind === "file" ? Buffer.from(entry.bytes).equals(fs.readFileSync(path.join(workspace, name))) : entry).toBe(true)
    }
    write(workspace, { "crlf.txt": "changed\n", "lf.txt": "changed\r\n", "README.md": "x" })
    fs.rmSync(path.join(workspace, "staged.txt"))
    const second = await run(store.snapshot())
    const changes = await run(store.changes(first.id, second.id))
    await run(store.restore(first.id, changes.map((change) => change.path)))

    expect(treeState(workspace, { skip: [".git"] })).toEqual(before)
    expect(treeState(path.join(workspace, ".git"))).toEqual(dotGit)
    expect(fs.existsSync(marker)).toBe(false)
    expect(git(workspace, "stash", "list")).toMatch(/^stash@\{0\}/)
    // Nothing of the store is in the workspace; all of it is under the Crystal home.
    expect(fs.existsSync(storeDirFor(workspace, home))).toBe(true)
    expect(execFileSync("find", [workspace, "-name", "*.tmp"], { encoding: "utf8" })).toBe("")
  })

  it("a nested repository's files are recorded as content (not as a gitlink), its .git never", async () => {
    const { workspace, home } = await fixture()
    makeRepo(workspace, { "top.txt": "top\n" })
    makeRepo(path.join(workspace, "vendor/lib"), { "lib.c": "int x;\n" })
    const store = await openStore(workspace, home)
    const first = await run(store.snapshot())
    const entry = await run(store.read(first.id, "vendor/lib/lib.c"))
    expect(entry?.kind === "file" ? Buffer.from(entry.bytes).toString() : entry).toBe("int x;\n")
    expect(await run(store.read(first.id, "vendor/lib/.git/HEAD"))).toBeUndefined()
    const nestedGit = treeState(path.join(workspace, "vendor/lib/.git"))
    write(workspace, { "vendor/lib/lib.c": "int y;\n" })
    const second = await run(store.snapshot())
    expect((await run(store.changes(first.id, second.id))).map((change) => change.path)).toEqual(["vendor/lib/lib.c"])
    await run(store.restore(first.id, ["vendor/lib/lib.c"]))
    expect(fs.readFileSync(path.join(workspace, "vendor/lib/lib.c"), "utf8")).toBe("int x;\n")
    expect(treeState(path.join(workspace, "vendor/lib/.git"))).toEqual(nestedGit)
  })

  it("works with no git on PATH and outside any repository", async () => {
    const { workspace, home } = await fixture()
    write(workspace, { "plain.txt": "no repository here\n" })
    const savedPath = process.env["PATH"]
    process.env["PATH"] = path.join(path.dirname(workspace), "no-bin")
    try {
      expect(() => execFileSync("git", ["--version"], { stdio: "ignore" })).toThrow()
      const store = await openStore(workspace, home)
      const first = await run(store.snapshot())
      write(workspace, { "plain.txt": "edited\n" })
      const second = await run(store.snapshot())
      expect(await run(store.changes(first.id, second.id))).toEqual([{ path: "plain.txt", kind: "modified", added: 1, removed: 1, binary: false }])
      await run(store.restore(first.id, ["plain.txt"]))
      expect(fs.readFileSync(path.join(workspace, "plain.txt"), "utf8")).toBe("no repository here\n")
    } finally {
      process.env["PATH"] = savedPath
    }
  })
})
