/**
 * Nested repositories (issue 23): a git read runs the config and hooks of every repository git
 * enters from the one it runs in. Each hostile case first shows that the real git runs the
 * planted program (a marker file appears), then that the classifier makes the call ask under
 * `--approval plan` and `default`; the clean cases still run unasked.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { repositoryRunsPrograms } from "../../../../src/approval/git/repo-config.ts"
import { expectAsks, expectGitRunsIt as gitRunsIt, expectRunsUnasked, runShell, setConfig } from "../../../support/git-attacks.ts"
import { git, makeRepo, makeSuperproject, writeHook } from "../../../support/git-repos.ts"
import { tempDir } from "../../../support/temp.ts"

let root: string
let template: string
let sources: string

beforeAll(() => {
  root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "crystal-nested-")))
  sources = path.join(root, "sources")
  template = makeSuperproject(sources, path.join(root, "super"), 3, { nested: true })
}, 60_000)

afterAll(() => {
  fs.rmSync(root, { recursive: true, force: true })
})

interface Fixture {
  /** The workspace: a copy of the superproject (sub1 with sub1/inner, sub2, sub3). */
  readonly ws: string
  /** A directory outside the workspace. */
  readonly outside: string
  /** Where a planted program leaves its mark. */
  readonly marker: string
  /** A shell command that leaves the mark. */
  readonly plant: string
}

const fixture = async (): Promise<Fixture> => {
  const base = await tempDir("crystal-nested-")
  const ws = path.join(base, "ws")
  fs.cpSync(template, ws, { recursive: true, verbatimSymlinks: true })
  const outside = path.join(base, "outside")
  fs.mkdirSync(outside)
  const marker = path.join(base, "marker")
  return { ws, outside, marker, plant: `touch ${marker}; false` }
}

/** The real git runs the planted program for this command line (the attack is real). */
const expectGitRunsIt = (f: Fixture, line: string, cwd = f.ws): void => gitRunsIt(f.marker, cwd, line)

const superReads = ["git status", "git status --short", "git diff", "git diff --stat", "git describe --dirty --always"]

describe("git reads in a superproject", () => {
  it("run unasked when no repository git enters runs a program", async () => {
    const f = await fixture()
    expect(repositoryRunsPrograms(f.ws)).toBeUndefined()
    for (const line of [...superReads, "cd sub1 && git status", "cd sub1/inner && git log --oneline", "git -C sub2 diff", "git -C sub1 status --short"]) {
      expectRunsUnasked(f.ws, line)
    }
    // It may also enter gitlinks only old commits have, which the walk does not visit (review F7).
    expectAsks(f.ws, "git diff --submodule=diff", /--submodule=diff enters the repositories at gitlink paths of old commits/)
  })

  it("ask when a submodule's config in .git/modules sets core.fsmonitor", async () => {
    const f = await fixture()
    setConfig(path.join(f.ws, ".git", "modules", "sub2", "config"), "core.fsmonitor", f.plant)
    expectGitRunsIt(f, "git status")
    expectGitRunsIt(f, "git describe --dirty --always")
    for (const line of superReads) expectAsks(f.ws, line, /\.git\/modules\/sub2 sets core\.fsmonitor/)
    expectAsks(f.ws, "cd sub2 && git status", /core\.fsmonitor/)
  })

  it("ask when a submodule of a submodule sets core.fsmonitor", async () => {
    const f = await fixture()
    setConfig(path.join(f.ws, ".git", "modules", "sub1", "modules", "inner", "config"), "core.fsmonitor", f.plant)
    expectGitRunsIt(f, "git status")
    for (const line of superReads) expectAsks(f.ws, line, /\.git\/modules\/sub1\/modules\/inner sets core\.fsmonitor/)
    expectAsks(f.ws, "cd sub1 && git status", /core\.fsmonitor/)
  })

  it("ask when a submodule has a post-index-change hook in .git/modules/NAME/hooks", async () => {
    const f = await fixture()
    writeHook(path.join(f.ws, ".git", "modules", "sub3", "hooks", "post-index-change"), f.plant)
    // A changed stat makes the submodule's git status refresh and write its index, which runs the hook.
    const file = path.join(f.ws, "sub3", "file3.txt")
    fs.utimesSync(file, new Date(2001, 1, 1), new Date(2001, 1, 1))
    expectGitRunsIt(f, "git status")
    for (const line of superReads) expectAsks(f.ws, line, /\.git\/modules\/sub3 has a post-index-change hook/)
  })

  it("ask when a gitlinked nested repository (no .gitmodules entry) sets diff.external in its own .git/config", async () => {
    const f = await fixture()
    const nested = makeRepo(path.join(f.ws, "nested"), { "n.txt": "n\n" })
    git(f.ws, "add", "nested")
    git(f.ws, "commit", "-q", "-m", "gitlink")
    expect(fs.readFileSync(path.join(f.ws, ".gitmodules"), "utf8")).not.toContain("path = nested")
    setConfig(path.join(nested, ".git", "config"), "diff.external", `sh -c '${f.plant}'`)
    fs.appendFileSync(path.join(nested, "n.txt"), "changed\n")
    expectGitRunsIt(f, "git diff --submodule=diff")
    for (const line of superReads) expectAsks(f.ws, line, /nested repository nested\/\.git sets diff\.external/)
  })

  it("ask when a gitlinked nested repository without .gitmodules sets core.fsmonitor", async () => {
    const f = await fixture()
    const nested = makeRepo(path.join(f.ws, "nested"), { "n.txt": "n\n" })
    git(f.ws, "add", "nested")
    git(f.ws, "commit", "-q", "-m", "gitlink")
    setConfig(path.join(nested, ".git", "config"), "core.fsmonitor", f.plant)
    expectGitRunsIt(f, "git status")
    expectAsks(f.ws, "git status", /nested\/\.git sets core\.fsmonitor/)
  })

  it("ask when a submodule's gitfile points outside the workspace to a repository that runs a program", async () => {
    const f = await fixture()
    // sub1 and sub1/inner keep their git directories outside the workspace.
    const elsewhere = path.join(f.outside, "sub1.git")
    fs.renameSync(path.join(f.ws, ".git", "modules", "sub1"), elsewhere)
    fs.writeFileSync(path.join(f.ws, "sub1", ".git"), `gitdir: ${elsewhere}\n`)
    fs.writeFileSync(path.join(f.ws, "sub1", "inner", ".git"), `gitdir: ${path.join(elsewhere, "modules", "inner")}\n`)
    setConfig(path.join(elsewhere, "config"), "core.worktree", path.join(f.ws, "sub1"))
    setConfig(path.join(elsewhere, "modules", "inner", "config"), "core.worktree", path.join(f.ws, "sub1", "inner"))
    expectRunsUnasked(f.ws, "git status")
    setConfig(path.join(elsewhere, "config"), "core.fsmonitor", f.plant)
    expectGitRunsIt(f, "git status")
    expectAsks(f.ws, "git status", new RegExp(`${elsewhere.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")} sets core\\.fsmonitor`))
  })

  it("ask when a submodule's git directory has a name with slashes (modules/a/b)", async () => {
    const f = await fixture()
    git(f.ws, "submodule", "add", "-q", "--name", "a/b", path.join(sources, "sub2"), "named")
    git(f.ws, "commit", "-q", "-m", "named")
    setConfig(path.join(f.ws, ".git", "modules", "a", "b", "config"), "core.fsmonitor", f.plant)
    expectGitRunsIt(f, "git status")
    expectAsks(f.ws, "git status", /\.git\/modules\/a\/b sets core\.fsmonitor/)
  })

  it("ask when a submodule's core.worktree points anywhere but its own directory", async () => {
    const f = await fixture()
    setConfig(path.join(f.ws, ".git", "modules", "sub2", "config"), "core.worktree", "/")
    expectAsks(f.ws, "git status", /core\.worktree/)
  })

  it("still run unasked beside an untracked nested repository, which git does not enter", async () => {
    const f = await fixture()
    const untracked = makeRepo(path.join(f.ws, "scratch"), { "s.txt": "s\n" })
    setConfig(path.join(untracked, ".git", "config"), "core.fsmonitor", f.plant)
    for (const line of ["git status", "git status -uall", "git diff"]) {
      runShell(f.ws, line)
      expect(fs.existsSync(f.marker), line).toBe(false)
      expectRunsUnasked(f.ws, line)
    }
    // In it, the repository is its own.
    expectAsks(f.ws, "git -C scratch status", /core\.fsmonitor/)
  })

  it("ask when the index cannot be read", async () => {
    const f = await fixture()
    fs.writeFileSync(path.join(f.ws, ".git", "index"), "DIRC garbage")
    expectAsks(f.ws, "git status", /index .* cannot be read/)
  })

  it("ask, with a one-line reason, when .git/modules or a hooks directory cannot be listed (a symbolic link loop)", async () => {
    const f = await fixture()
    const modules = path.join(f.ws, ".git", "modules")
    fs.renameSync(modules, path.join(f.ws, ".git", "modules-aside"))
    fs.symlinkSync(modules, modules)
    expectAsks(f.ws, "git status", /\.git\/modules cannot be read/)
    fs.rmSync(modules)
    fs.renameSync(path.join(f.ws, ".git", "modules-aside"), modules)
    const hooks = path.join(modules, "sub3", "hooks")
    fs.rmSync(hooks, { recursive: true })
    fs.symlinkSync(hooks, hooks)
    expectAsks(f.ws, "git status", /\.git\/modules\/sub3 has a hooks directory Crystal cannot read/)
  })

  it("ask when gitlinked repositories nest deeper than the walk goes", async () => {
    const f = await fixture()
    let dir = f.ws
    const chain: Array<string> = []
    for (let level = 0; level < 18; level++) {
      const child = path.join(dir, "n")
      fs.mkdirSync(child)
      git(child, "init", "-q")
      chain.push(child)
      dir = child
    }
    // Each repository's index holds a gitlink to the next one.
    for (const child of chain) git(path.dirname(child), "update-index", "--add", "--cacheinfo", `160000,${"1".repeat(40)},n`)
    expectAsks(f.ws, "git status", /levels deep/)
  })
})

describe("which repository git uses", () => {
  it("asks for a bare repository in the workspace whose config runs a program", async () => {
    const f = await fixture()
    const bare = path.join(f.ws, "vendor", "bare.git")
    git(f.ws, "clone", "-q", "--bare", path.join(sources, "sub2"), bare)
    setConfig(path.join(bare, "config"), "diff.x.textconv", `sh -c '${f.plant}'`)
    fs.mkdirSync(path.join(bare, "info"), { recursive: true })
    fs.writeFileSync(path.join(bare, "info", "attributes"), "* diff=x\n")
    expectGitRunsIt(f, "git -C vendor/bare.git log -p")
    expectAsks(f.ws, "git -C vendor/bare.git log -p", /diff\.x\.textconv/)
    expectAsks(f.ws, "cd vendor/bare.git/refs && git log -p", /diff\.x\.textconv/)
  })

  it("passes over a .git directory that is not a repository, as git does, to the repository above", async () => {
    const f = await fixture()
    setConfig(path.join(f.ws, ".git", "config"), "core.fsmonitor", f.plant)
    fs.mkdirSync(path.join(f.ws, "decoy", ".git"), { recursive: true })
    expectGitRunsIt(f, "git status", path.join(f.ws, "decoy"))
    expectAsks(f.ws, "cd decoy && git status", /the repository config sets core\.fsmonitor/)
  })
})

describe("git reads that go up from a submodule", () => {
  it("ask for rev-parse --show-superproject-working-tree, which runs git in the superproject", async () => {
    const f = await fixture()
    setConfig(path.join(f.ws, ".git", "config"), "core.fsmonitor", f.plant)
    expectGitRunsIt(f, "git rev-parse --show-superproject-working-tree", path.join(f.ws, "sub1"))
    expectAsks(f.ws, "cd sub1 && git rev-parse --show-superproject-working-tree", /--show-superproject-working-tree/)
    // Other reads in the submodule stay in it.
    runShell(path.join(f.ws, "sub1"), "git status; git diff; git log -1")
    expect(fs.existsSync(f.marker)).toBe(false)
    expectRunsUnasked(f.ws, "cd sub1 && git status")
  })
})

describe("git reads in the repositories of a real checkout", () => {
  it("a nested submodule's own directory, and a linked worktree, run unasked", async () => {
    const f = await fixture()
    git(f.ws, "worktree", "add", "-q", path.join(f.ws, "wt"), "-b", "side")
    expectRunsUnasked(f.ws, "cd wt && git status")
    expectRunsUnasked(f.ws, "git -C sub1/inner status")
  })
})

it("has the fixture it describes: three submodules, sub1 with one of its own", () => {
  expect(fs.readFileSync(path.join(template, ".gitmodules"), "utf8")).toContain("sub3")
  expect(fs.existsSync(path.join(template, ".git", "modules", "sub1", "modules", "inner", "config"))).toBe(true)
})
