/** The index reader against index files written by the real git, in every version and layout it reads. */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { indexGitlinks } from "../../../../src/approval/git/index-file.ts"
import { git, makeRepo } from "../../../support/git-repos.ts"
import { tempDir } from "../../../support/temp.ts"

/** What git itself lists as gitlinks (mode 160000) in the index. */
const gitsOwnGitlinks = (repo: string): ReadonlyArray<string> =>
  git(repo, "ls-files", "-s", "-z")
    .split("\0")
    .filter((line) => line.startsWith("160000 "))
    .map((line) => line.slice(line.indexOf("\t") + 1))
    .sort()

const indexVersion = (repo: string): number => fs.readFileSync(path.join(repo, ".git", "index")).readUInt32BE(4)

const addGitlink = (repo: string, where: string, oid = "1".repeat(40)): void => {
  git(repo, "update-index", "--add", "--cacheinfo", `160000,${oid},${where}`)
}

/** A repository whose index mixes files in shared directories (prefix compression in v4) and gitlinks, one with a path longer than 4095 bytes. */
const makeMixedRepo = async (): Promise<{ readonly repo: string; readonly longPath: string }> => {
  const repo = makeRepo(path.join(await tempDir(), "repo"), {
    "src/deep/alpha.ts": "a\n",
    "src/deep/beta.ts": "b\n",
    "src/deep/gamma/delta.ts": "d\n",
    "vendor/zz.txt": "z\n"
  })
  addGitlink(repo, "vendor/lib-a")
  addGitlink(repo, "src/deep/gamma/nested repo")
  addGitlink(repo, "vendor/ünïcode")
  // Longer than the 12-bit name length field: the name is found by its NUL.
  const longPath = `vendor/${"d".repeat(200)}/`.repeat(22) + "end"
  addGitlink(repo, longPath)
  return { repo, longPath }
}

const read = (repo: string, hashBytes = 20) => indexGitlinks(path.join(repo, ".git"), hashBytes)

describe("indexGitlinks", () => {
  it.each([2, 3, 4])("reads the gitlinks of an index version %i written by git", async (version) => {
    const { repo, longPath } = await makeMixedRepo()
    // Version 3 is only written when an entry has extended flags (skip-worktree is one).
    if (version === 3) git(repo, "update-index", "--skip-worktree", "vendor/zz.txt")
    git(repo, "update-index", "--index-version", String(version))
    expect(indexVersion(repo)).toBe(version)
    const result = read(repo)
    expect(result.ok).toBe(true)
    const paths = result.ok ? [...result.paths].sort() : []
    expect(paths).toEqual(gitsOwnGitlinks(repo))
    expect(paths).toContain(longPath)
    expect(paths).toHaveLength(4)
  })

  it("reads a split index together with its shared index", async () => {
    const { repo } = await makeMixedRepo()
    git(repo, "update-index", "--split-index")
    addGitlink(repo, "after/split")
    expect(fs.readdirSync(path.join(repo, ".git")).some((name) => name.startsWith("sharedindex."))).toBe(true)
    const result = read(repo)
    expect(result.ok && [...result.paths].sort()).toEqual(gitsOwnGitlinks(repo))
  })

  it("fails closed on a split-index gitlink whose path only the shared index holds", async () => {
    const { repo } = await makeMixedRepo()
    git(repo, "update-index", "--split-index")
    // Changing an entry in place writes it with an empty name in the split index.
    addGitlink(repo, "vendor/lib-a", "2".repeat(40))
    const result = read(repo)
    expect(result).toMatchObject({ ok: false, reason: expect.stringContaining("only the shared index names") })
  })

  it("reads a SHA-256 repository's index", async () => {
    const repo = path.join(await tempDir(), "sha256")
    fs.mkdirSync(repo)
    git(repo, "init", "-q", "--object-format=sha256")
    fs.writeFileSync(path.join(repo, "a.txt"), "a\n")
    git(repo, "add", "a.txt")
    addGitlink(repo, "sub", "3".repeat(64))
    const result = read(repo, 32)
    expect(result).toEqual({ ok: true, paths: ["sub"] })
  })

  it("has no gitlinks without an index", async () => {
    const repo = path.join(await tempDir(), "empty")
    fs.mkdirSync(repo)
    git(repo, "init", "-q")
    expect(read(repo)).toEqual({ ok: true, paths: [] })
  })

  it("answers from its cache while the index is unchanged, and reads it again once git changes it", async () => {
    const { repo } = await makeMixedRepo()
    const first = read(repo)
    expect(read(repo)).toBe(first)
    addGitlink(repo, "later")
    const second = read(repo)
    expect(second).not.toBe(first)
    expect(second.ok && second.paths).toContain("later")
  })

  describe("fails closed on an index it does not know", () => {
    /** A git directory whose index is `bytes`. */
    const gitDirWith = async (bytes: Buffer): Promise<string> => {
      const dir = await tempDir()
      fs.writeFileSync(path.join(dir, "index"), bytes)
      return dir
    }
    const realIndex = async (): Promise<Buffer> => {
      const { repo } = await makeMixedRepo()
      git(repo, "update-index", "--index-version", "2")
      return fs.readFileSync(path.join(repo, ".git", "index"))
    }
    /** The index with one more extension before its trailing checksum. */
    const withExtension = (index: Buffer, signature: string, body: Buffer): Buffer => {
      const header = Buffer.alloc(8)
      header.write(signature, 0, "latin1")
      header.writeUInt32BE(body.length, 4)
      return Buffer.concat([index.subarray(0, index.length - 20), header, body, index.subarray(index.length - 20)])
    }

    it("a required extension it does not know", async () => {
      const dir = await gitDirWith(withExtension(await realIndex(), "abcd", Buffer.from("xyz")))
      expect(indexGitlinks(dir, 20)).toMatchObject({ ok: false, reason: expect.stringContaining('"abcd"') })
    })

    it("but not an optional one (upper-case signature), which git itself skips", async () => {
      const dir = await gitDirWith(withExtension(await realIndex(), "ZZZZ", Buffer.from("xyz")))
      expect(indexGitlinks(dir, 20)).toMatchObject({ ok: true, paths: expect.arrayContaining(["vendor/lib-a"]) })
    })

    it("a version it does not read, a truncated file, and a file that is no index", async () => {
      const index = await realIndex()
      const version5 = Buffer.from(index)
      version5.writeUInt32BE(5, 4)
      for (const bytes of [version5, index.subarray(0, 100), Buffer.from("not an index at all, really")]) {
        expect(indexGitlinks(await gitDirWith(bytes), 20).ok).toBe(false)
      }
    })

    it("an index it cannot open", async () => {
      const dir = await tempDir()
      fs.mkdirSync(path.join(dir, "index"))
      expect(indexGitlinks(dir, 20)).toMatchObject({ ok: false, reason: expect.stringContaining("cannot be read") })
    })
  })
})
