/**
 * The bypasses of the git read check an independent review found (F1–F7), each reproduced: the
 * real git runs the planted program (a marker file appears), and the call asks under
 * `--approval plan` and `default`.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { repositoryRunsPrograms } from "../../../../src/approval/git/repo-config.ts"
import { makeFifo, unblockFifoAfter, type FifoGuard } from "../../../support/fifo.ts"
import { expectAsks, expectGitRunsIt, expectRunsUnasked, runShell, setConfig } from "../../../support/git-attacks.ts"
import { addSubmodule, git, makeRepo } from "../../../support/git-repos.ts"
import { tempDir } from "../../../support/temp.ts"

const guards: Array<FifoGuard> = []
afterEach(() => {
  for (const guard of guards.splice(0)) guard.stop()
})

interface Box {
  /** The workspace: a clean repository with one committed file. */
  readonly ws: string
  /** Where a planted program leaves its mark. */
  readonly marker: string
  /** A shell command that leaves the mark. */
  readonly plant: string
}

const box = async (): Promise<Box> => {
  const base = await tempDir("crystal-bypass-")
  const ws = makeRepo(path.join(base, "ws"), { "top.txt": "top\n" })
  const marker = path.join(base, "marker")
  return { ws, marker, plant: `touch ${marker}; false` }
}

describe("F1: a backslash inside a config comment does not continue the line", () => {
  it("asks when a key hides on the line after a commented backslash", async () => {
    const b = await box()
    fs.appendFileSync(path.join(b.ws, ".git", "config"), `[core]\n\tquotepath = false ; \\\n\tfsmonitor = "${b.plant}"\n`)
    expectGitRunsIt(b.marker, b.ws, "git status")
    expectAsks(b.ws, "git status", /sets core\.fsmonitor/)
  })
})

/** A repository at `dir` (inside the workspace, untracked there) whose config sets core.fsmonitor to the plant. */
const hostileRepo = (b: Box, dir: string): string => {
  const repo = makeRepo(path.join(b.ws, dir), { "evil.txt": "evil\n" })
  setConfig(path.join(repo, ".git", "config"), "core.fsmonitor", b.plant)
  return repo
}

describe("F2: HEAD is judged as git's validate_headref judges it", () => {
  it("asks for a nested repository whose HEAD is larger than Crystal reads (git reads 255 bytes and accepts it)", async () => {
    const b = await box()
    const evil = hostileRepo(b, "vendor/evil")
    fs.appendFileSync(path.join(evil, ".git", "HEAD"), "\n".repeat(1.5 * 1024 * 1024))
    expectGitRunsIt(b.marker, b.ws, "git -C vendor/evil status")
    expectAsks(b.ws, "git -C vendor/evil status", /core\.fsmonitor/)
    expectAsks(b.ws, "cd vendor/evil && git status", /core\.fsmonitor/)
  })

  it.each([
    ["a vertical tab", "\v"],
    ["a form feed", "\f"],
    ["a no-break space", "\xA0"]
  ])("passes over a decoy .git whose HEAD has %s after ref: (git rejects it) to the hostile repository above", async (_name, space) => {
    const b = await box()
    setConfig(path.join(b.ws, ".git", "config"), "core.fsmonitor", b.plant)
    const decoy = path.join(b.ws, "decoy", ".git")
    for (const dir of ["objects", "refs"]) fs.mkdirSync(path.join(decoy, dir), { recursive: true })
    fs.writeFileSync(path.join(decoy, "HEAD"), Buffer.from(`ref:${space}refs/heads/main\n`, "latin1"))
    expectGitRunsIt(b.marker, path.join(b.ws, "decoy"), "git status")
    expectAsks(b.ws, "cd decoy && git status", /the repository config sets core\.fsmonitor/)
  })

  it("still takes a decoy whose HEAD git accepts (ref: then spaces, tabs, CR) as the repository", async () => {
    const b = await box()
    setConfig(path.join(b.ws, ".git", "config"), "core.fsmonitor", b.plant)
    const decoy = path.join(b.ws, "decoy", ".git")
    for (const dir of ["objects", "refs"]) fs.mkdirSync(path.join(decoy, dir), { recursive: true })
    fs.writeFileSync(path.join(decoy, "HEAD"), "ref: \t\r\nrefs/heads/main\n")
    expect(repositoryRunsPrograms(path.join(b.ws, "decoy"))).toBeUndefined()
  })

  it("asks, without opening it, when a HEAD is a FIFO (git would block on it)", async () => {
    const b = await box()
    const head = path.join(b.ws, ".git", "HEAD")
    fs.rmSync(head)
    makeFifo(head)
    guards.push(unblockFifoAfter(head, 5))
    expectAsks(b.ws, "git status", /HEAD is not a regular file/)
  })
})

describe("F3: a git file that exists but cannot be read makes the read ask", () => {
  it("asks for a linked worktree whose commondir is followed by 1.1 MB of newlines (git strips them)", async () => {
    const b = await box()
    const main = hostileRepo(b, "vendor/evil-main")
    git(main, "worktree", "add", "-q", "../evil")
    const commondir = path.join(main, ".git", "worktrees", "evil", "commondir")
    fs.appendFileSync(commondir, "\n".repeat(1.1 * 1024 * 1024))
    expectGitRunsIt(b.marker, b.ws, "git -C vendor/evil status")
    expectAsks(b.ws, "git -C vendor/evil status", /commondir is larger than/)
  })

  it("asks for a gitfile larger than git accepts, and for a commondir that is not UTF-8", async () => {
    const b = await box()
    const main = hostileRepo(b, "vendor/evil-main")
    git(main, "worktree", "add", "-q", "../evil")
    const gitfile = path.join(b.ws, "vendor", "evil", ".git")
    const original = fs.readFileSync(gitfile)
    fs.appendFileSync(gitfile, "\n".repeat(1.1 * 1024 * 1024))
    expectAsks(b.ws, "git -C vendor/evil status", /\.git is larger than/)
    fs.writeFileSync(gitfile, original)
    fs.writeFileSync(path.join(main, ".git", "worktrees", "evil", "commondir"), Buffer.from("../\xff\n", "latin1"))
    expectAsks(b.ws, "git -C vendor/evil status", /commondir is not UTF-8/)
  })

  it("follows a gitfile's `link/..` as the kernel does, to the repository git uses", async () => {
    const b = await box()
    hostileRepo(b, "vendor/hostile")
    fs.mkdirSync(path.join(b.ws, "vendor", "hostile", "sub"))
    const decoy = path.join(b.ws, "vendor", "x")
    fs.mkdirSync(decoy)
    fs.symlinkSync("../hostile/sub", path.join(decoy, "lnk"))
    // Lexically lnk/../.git is vendor/x/.git (this file); the kernel takes lnk first: vendor/hostile/.git.
    fs.writeFileSync(path.join(decoy, ".git"), "gitdir: lnk/../.git\n")
    expectGitRunsIt(b.marker, b.ws, "git -C vendor/x status")
    expectAsks(b.ws, "git -C vendor/x status", /core\.fsmonitor/)
  })

  it("a clean linked worktree still runs unasked", async () => {
    const b = await box()
    git(b.ws, "worktree", "add", "-q", "wt")
    expectRunsUnasked(b.ws, "cd wt && git status")
    expectRunsUnasked(b.ws, "git -C wt diff")
  })
})

describe("found while fixing F3: git goes up from its physical working directory", () => {
  it("asks when a symbolic link leads into a hostile nested repository's subdirectory", async () => {
    const b = await box()
    const evil = hostileRepo(b, "vendor/evil")
    fs.mkdirSync(path.join(evil, "src"))
    fs.symlinkSync("vendor/evil/src", path.join(b.ws, "lnk"))
    for (const line of ["cd lnk && git status", "git -C lnk status"]) {
      expectGitRunsIt(b.marker, b.ws, line)
      expectAsks(b.ws, line, /core\.fsmonitor/)
    }
  })
})

describe("F4: a submodule's core.worktree decides where git finds its gitlinks", () => {
  it("asks when .git/modules/sub moves its worktree to an untracked directory whose gitlink x is a hostile repository", async () => {
    const b = await box()
    const sources = path.join(path.dirname(b.ws), "sources")
    const sub = makeRepo(path.join(sources, "sub"), { "s.txt": "s\n" })
    addSubmodule(sub, makeRepo(path.join(sources, "inner"), { "i.txt": "i\n" }), "x")
    addSubmodule(b.ws, sub, "sub")
    git(b.ws, "submodule", "update", "-q", "--init", "--recursive")
    expectRunsUnasked(b.ws, "git status")
    // D holds what sub's index expects, and at D/x a repository that is no submodule at all.
    const moved = path.join(b.ws, "D")
    fs.mkdirSync(moved)
    for (const file of ["s.txt", ".gitmodules"]) fs.copyFileSync(path.join(b.ws, "sub", file), path.join(moved, file))
    hostileRepo(b, "D/x")
    setConfig(path.join(b.ws, ".git", "modules", "sub", "config"), "core.worktree", "../../../D")
    expectGitRunsIt(b.marker, b.ws, "git status")
    for (const line of ["git status", "git diff"]) expectAsks(b.ws, line, /\.git\/modules\/sub sets core\.worktree/)
    expectAsks(b.ws, "cd sub && git status", /sets core\.worktree/)
  })
})

describe("F5: a directory given as a glob or only known at run time is not a literal path", () => {
  const lines = [
    "find . -name evil.txt -execdir git status \\;",
    "find . -name evil.txt -okdir git status \\;",
    "find vendor -mindepth 1 -maxdepth 1 -exec git -C {} status \\;",
    "git -C vendor/ev* status",
    "cd vendor/* && git status",
    "cd vendor/e?il && git status",
    "pushd vendor/* && git status",
    'for d in vendor/*/; do git -C "$d" status; done',
    'for d in */*/; do (cd "$d" && git status); done',
    "d='vendor/*'; cd $d && git status",
    "find vendor -maxdepth 1 -exec sh -c 'cd \"$1\" && git status' _ {} \\;"
  ]

  for (const line of lines) {
    it(`asks for ${line} beside an untracked hostile repository`, async () => {
      const b = await box()
      hostileRepo(b, "vendor/evil")
      // okdir asks on its terminal; the real run answers yes.
      expectGitRunsIt(b.marker, b.ws, line.includes("-okdir") ? `yes | ${line}` : line)
      expectAsks(b.ws, line, /only known at run time|core\.fsmonitor/)
    })
  }

  it("asks for git submodule foreach, whose command runs in each submodule's directory", async () => {
    const b = await box()
    addSubmodule(b.ws, makeRepo(path.join(path.dirname(b.ws), "sources", "lib")), "libs/lib")
    hostileRepo(b, "libs/lib/evil")
    // Read from the workspace, `evil` would be this clean directory.
    fs.mkdirSync(path.join(b.ws, "evil"))
    const line = "git submodule foreach 'cd evil && git status'"
    expectGitRunsIt(b.marker, b.ws, line)
    expectAsks(b.ws, line, /only known at run time|core\.fsmonitor/)
  })

  it("checks each known value of a loop variable, and lets a clean list run unasked", async () => {
    const b = await box()
    makeRepo(path.join(b.ws, "vendor", "clean"))
    fs.mkdirSync(path.join(b.ws, "docs"))
    expectRunsUnasked(b.ws, "for d in vendor/clean docs; do git -C $d status; done")
    expectRunsUnasked(b.ws, "for d in vendor/clean docs; do (cd $d && git status); done")
    hostileRepo(b, "vendor/evil")
    expectGitRunsIt(b.marker, b.ws, "for d in docs vendor/evil; do git -C $d status; done")
    expectAsks(b.ws, "for d in docs vendor/evil; do git -C $d status; done", /core\.fsmonitor/)
  })
})

describe("F6: config keys that name programs git help and a partial clone's reads run", () => {
  /** `git help` with these settings in the repository config runs the plant; the key the check names. */
  const helpCases: ReadonlyArray<readonly [string, string, (b: Box, html: string) => ReadonlyArray<readonly [string, string]>]> = [
    ["git help status", "man.viewer", (b) => [["man.viewer", "evil"], ["man.evil.cmd", b.plant]]],
    ["git status --help", "man.evil.cmd", (b) => [["man.evil.cmd", b.plant], ["man.viewer", "evil"]]],
    ["git help status", "man.man.path", (b) => [["man.man.path", plantScript(b)], ["man.viewer", "man"]]],
    ["git help status", "browser.evil.cmd", (b, html) => [["help.format", "web"], ["help.htmlPath", html], ["browser.evil.cmd", b.plant], ["web.browser", "evil"]]],
    ["git help -w status", "help.browser", (b, html) => [["help.htmlPath", html], ["help.browser", "firefox"], ["browser.firefox.path", plantScript(b)]]]
  ]

  for (const [line, key, settings] of helpCases) {
    it(`asks for ${line} when the config sets ${key}`, async () => {
      const b = await box()
      const html = path.join(path.dirname(b.ws), "html")
      fs.mkdirSync(html)
      fs.writeFileSync(path.join(html, "git-status.html"), "<html></html>\n")
      for (const [name, value] of settings(b, html)) setConfig(path.join(b.ws, ".git", "config"), name, value)
      expectGitRunsIt(b.marker, b.ws, `${line} </dev/null`)
      expectAsks(b.ws, line, `the repository config sets ${key}, which runs a program`)
    })
  }

  /** A partial clone of a fresh repository at ws/vendor/pc: reading old blobs fetches them from origin. */
  const partialClone = (b: Box): string => {
    const source = makeRepo(path.join(path.dirname(b.ws), "origin"), { "a.txt": "one\n" })
    fs.appendFileSync(path.join(source, "a.txt"), "two\n")
    git(source, "commit", "-qam", "two")
    git(source, "config", "uploadpack.allowFilter", "true")
    const clone = path.join(b.ws, "vendor", "pc")
    fs.mkdirSync(path.dirname(clone), { recursive: true })
    git(b.ws, "clone", "-q", "--filter=blob:none", "--no-checkout", `file://${source}`, clone)
    expectRunsUnasked(b.ws, "git -C vendor/pc log -p")
    return clone
  }

  it("asks for a read in a partial clone whose promisor remote sets uploadpack", async () => {
    const b = await box()
    const clone = partialClone(b)
    setConfig(path.join(clone, ".git", "config"), "remote.origin.uploadpack", `${b.plant.replace("false", "git-upload-pack")}`)
    expectGitRunsIt(b.marker, b.ws, "git -C vendor/pc log -p")
    expectAsks(b.ws, "git -C vendor/pc log -p", /sets remote\.origin\.uploadpack/)
  })

  it("asks for a read in a partial clone whose remote is an ext:: command the config allows", async () => {
    const b = await box()
    const clone = partialClone(b)
    const config = path.join(clone, ".git", "config")
    setConfig(config, "remote.origin.url", `ext::sh -c touch% ${b.marker}`)
    setConfig(config, "protocol.ext.allow", "never")
    expectRunsUnasked(b.ws, "git -C vendor/pc log -p")
    setConfig(config, "protocol.ext.allow", "always")
    expectGitRunsIt(b.marker, b.ws, "git -C vendor/pc log -p")
    expectAsks(b.ws, "git -C vendor/pc log -p", /sets protocol\.ext\.allow/)
  })

  it.each([
    ["gpg.ssh.defaultKeyCommand", "evil"],
    ["difftool.evil.cmd", "evil"],
    ["mergetool.evil.path", "/tmp/evil"],
    ["guitool.evil.cmd", "evil"],
    ["instaweb.browser", "evil"],
    ["imap.tunnel", "evil"],
    ["remote.origin.receivepack", "evil"],
    ["protocol.allow", "user"],
    ["lfs.extension.evil.clean", "evil"],
    ["lfs.customtransfer.evil.path", "/tmp/evil"]
  ])("a repository whose config sets %s runs a program", async (key, value) => {
    const b = await box()
    setConfig(path.join(b.ws, ".git", "config"), key, value)
    expect(repositoryRunsPrograms(b.ws)).toMatch(new RegExp(`sets ${key.replace(/\./g, "\\.")}`, "i"))
  })
})


describe("F6: setting a key that names a program is running a program", () => {
  it.each(["man.viewer evil", "man.evil.cmd 'touch x'", "help.browser evil", "web.browser evil", "protocol.ext.allow always", "gpg.ssh.defaultKeyCommand 'touch x'"])(
    "git config -f FILE %s asks as running a program, not only as writing a file, and -c with it too",
    async (setting) => {
      const b = await box()
      expectAsks(b.ws, `git config -f other.cfg ${setting}`, /sets a program git will run/)
      const [key, value] = [setting.slice(0, setting.indexOf(" ")), setting.slice(setting.indexOf(" ") + 1)]
      expectAsks(b.ws, `git -c ${key}=${value} help status`, /sets git configuration for this run/)
    }
  )
})

/** An executable script in the box's directory that leaves the mark. */
const plantScript = (b: Box): string => {
  const file = path.join(path.dirname(b.marker), "plant.sh")
  fs.writeFileSync(file, `#!/bin/sh\ntouch ${b.marker}\n`, { mode: 0o755 })
  return file
}

describe("F7: gitlinks that only old commits have", () => {
  /** Commits that add vendor/evil as a gitlink, bump it, then drop it from the index: the repository stays, untracked. */
  const historyGitlink = async (): Promise<Box> => {
    const b = await box()
    const evil = makeRepo(path.join(b.ws, "vendor", "evil"), { "e.txt": "one\n" })
    git(b.ws, "add", "vendor/evil")
    git(b.ws, "commit", "-qm", "add evil")
    fs.appendFileSync(path.join(evil, "e.txt"), "two\n")
    git(evil, "commit", "-qam", "two")
    git(b.ws, "add", "vendor/evil")
    git(b.ws, "commit", "-qm", "bump evil")
    git(b.ws, "rm", "-q", "--cached", "vendor/evil")
    git(b.ws, "commit", "-qm", "drop evil")
    setConfig(path.join(evil, ".git", "config"), "diff.external", b.plant)
    return b
  }

  it("lets git log -p run unasked while nothing enters the old gitlink", async () => {
    const b = await historyGitlink()
    for (const line of ["git log -p", "git show HEAD~1", "git diff HEAD~3 HEAD~1", "git log -p --submodule=log"]) {
      runShell(b.ws, line)
      expect(fs.existsSync(b.marker), line).toBe(false)
      expectRunsUnasked(b.ws, line)
    }
  })

  for (const line of ["git log -p --submodule=diff", "git show HEAD~1 --submodule=diff", "git diff HEAD~3 HEAD~1 --submodule=diff", "git whatchanged -p --submodule=diff"]) {
    it(`asks for ${line}`, async () => {
      const b = await historyGitlink()
      expectGitRunsIt(b.marker, b.ws, line)
      expectAsks(b.ws, line, /--submodule=diff enters the repositories at gitlink paths of old commits/)
    })
  }

  it("asks for git diff --submodule diff (the option's value as its own word)", async () => {
    const b = await historyGitlink()
    expectAsks(b.ws, "git diff HEAD~3 HEAD~1 --submodule diff", /--submodule=diff enters/)
  })

  for (const line of ["git log -p", "git show HEAD~1", "git diff HEAD~3 HEAD~1"]) {
    it(`asks for ${line} when the repository config sets diff.submodule = diff`, async () => {
      const b = await historyGitlink()
      setConfig(path.join(b.ws, ".git", "config"), "diff.submodule", "diff")
      expectGitRunsIt(b.marker, b.ws, line)
      expectAsks(b.ws, line, "the repository config sets diff.submodule = diff")
    })
  }

  it("asks when a nested repository's config sets diff.submodule = diff", async () => {
    const b = await box()
    const sub = makeRepo(path.join(path.dirname(b.ws), "sources", "sub"))
    addSubmodule(b.ws, sub, "sub")
    setConfig(path.join(b.ws, ".git", "modules", "sub", "config"), "diff.submodule", "diff")
    expectAsks(b.ws, "git status", /modules\/sub's config sets diff\.submodule = diff/)
  })
})

describe("found while fixing F7: an argument of a git read only known at run time may be any option", () => {
  /** A workspace that tracks a file named `--output=../.bashrc`: passed to git log as an argument, it is an option that writes there. */
  const optionNamedFile = async (): Promise<{ readonly b: Box; readonly written: string }> => {
    const b = await box()
    fs.mkdirSync(path.join(b.ws, "--output=.."))
    fs.writeFileSync(path.join(b.ws, "--output=..", ".bashrc"), "x\n")
    git(b.ws, "add", "--", "--output=../.bashrc")
    git(b.ws, "commit", "-qm", "names\n\n    touch /tmp/pwned")
    return { b, written: path.join(path.dirname(b.ws), ".bashrc") }
  }

  for (const line of ["for f in $(git ls-files); do git log -1 $f; done", "git ls-files | xargs git log -1", "read f < list.txt; git show $f"]) {
    it(`asks for ${line}`, async () => {
      const { b, written } = await optionNamedFile()
      fs.writeFileSync(path.join(b.ws, "list.txt"), "--output=../.bashrc\n")
      expectGitRunsIt(written, b.ws, line)
      expectAsks(b.ws, line, /passes git an argument only known at run time/)
    })
  }

  it("asks for git log -1 *, a glob whose matches may start with -", async () => {
    const b = await box()
    fs.writeFileSync(path.join(b.ws, "--output=written.txt"), "")
    expectGitRunsIt(path.join(b.ws, "written.txt"), b.ws, "git log -1 *")
    expectAsks(b.ws, "git log -1 *", /passes git an argument only known at run time/)
  })

  it("lets literal values, paths after --, and globs that cannot start with - run unasked", async () => {
    const { b } = await optionNamedFile()
    for (const line of ["for f in top.txt other.txt; do git log -1 $f; done", "git ls-files | xargs git log -1 --", "for f in $(git ls-files); do git log -1 -- $f; done", "git log -1 -- *", "git log -1 ./*", "git diff HEAD -- src/*.ts"]) {
      expectRunsUnasked(b.ws, line)
    }
  })
})
