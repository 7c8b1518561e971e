import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { classifyBash } from "../../../../src/approval/bash/classify.ts"
import type { Classification } from "../../../../src/approval/classification.ts"
import { makePathFence, type PathFence } from "../../../../src/approval/path-fence.ts"
import { decide, type ApprovalMode } from "../../../../src/approval/policy.ts"
import { editSpec, writeSpec } from "../../../../src/tools/write-specs.ts"
import { addSubmodule, git as gitIn, makeRepo } from "../../../support/git-repos.ts"
import { controls, hookedRepos, hostileLines, hostileRepos, outside, protectedWrites, suiteEnvironment } from "./hostile-corpus.ts"
import { noSecrets } from "../../../../src/secrets/secrets.ts"

/*
 * The classifier suite of issue 16, through the real classifier and decide(). Fixture (real files):
 *   base/ws              the workspace, a git repository: notes.md, src/a.ts, run.sh, package.json
 *   base/ws/vendor/NAME  nested repositories whose .git/config runs a program (hostile-corpus.ts)
 *   base/ws/vendor/hook-*  nested repositories with an active hook
 *   base/ws/vendor/linked  a nested repository whose .git is a `gitdir:` file pointing at a hostile one
 *   base/ws/vendor/clean a nested repository with an ordinary config
 *   base/ws/vendor/super  a superproject whose submodule's .git/modules/sub/config runs a program
 *   base/ws/vendor/gitlinked  a repository with a gitlinked nested repository whose .git/config runs a program
 *   base/ws/vendor/bare.git  a bare repository whose config and info/attributes run a textconv driver
 *   base/ws/link-out     → base/outside
 */
let base: string
let ws: string
let fence: PathFence

const git = (cwd: string, ...args: ReadonlyArray<string>): void => {
  execFileSync("git", ["-c", "init.defaultBranch=main", ...args], { cwd, stdio: "ignore" })
}

beforeAll(() => {
  base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "crystal-hostile-")))
  ws = path.join(base, "ws")
  fs.mkdirSync(path.join(ws, "src"), { recursive: true })
  fs.mkdirSync(path.join(base, "outside"))
  fs.mkdirSync(path.join(base, "home"))
  fs.writeFileSync(path.join(ws, "notes.md"), "a: 1\nb: 2\n")
  fs.writeFileSync(path.join(ws, "src", "a.ts"), "export const a = 1\n")
  fs.writeFileSync(path.join(ws, "run.sh"), "#!/bin/sh\ntouch /tmp/crystal-pwn\n")
  fs.writeFileSync(path.join(ws, "package.json"), '{ "name": "x", "scripts": { "test": "true" } }\n')
  fs.symlinkSync(path.join(base, "outside"), path.join(ws, "link-out"))
  git(ws, "init", "-q")
  for (const [name, config] of hostileRepos) {
    const repo = path.join(ws, "vendor", name)
    fs.mkdirSync(repo, { recursive: true })
    git(repo, "init", "-q")
    fs.appendFileSync(path.join(repo, ".git", "config"), config)
  }
  for (const name of hookedRepos) {
    const repo = path.join(ws, "vendor", name)
    fs.mkdirSync(repo, { recursive: true })
    git(repo, "init", "-q")
    const hook = path.join(repo, ".git", "hooks", name === "hook-index" ? "post-index-change" : "post-checkout")
    fs.writeFileSync(hook, "#!/bin/sh\ntouch /tmp/crystal-pwn\n", { mode: 0o755 })
  }
  const linked = path.join(ws, "vendor", "linked")
  fs.mkdirSync(linked, { recursive: true })
  fs.writeFileSync(path.join(linked, ".git"), `gitdir: ../fsmonitor/.git\n`)
  const clean = path.join(ws, "vendor", "clean")
  fs.mkdirSync(clean, { recursive: true })
  git(clean, "init", "-q")
  const superproject = makeRepo(path.join(ws, "vendor", "super"))
  addSubmodule(superproject, makeRepo(path.join(base, "sources", "sub")), "sub")
  fs.appendFileSync(path.join(superproject, ".git", "modules", "sub", "config"), "[core]\n\tfsmonitor = touch /tmp/crystal-pwn\n")
  const gitlinked = makeRepo(path.join(ws, "vendor", "gitlinked"))
  const nested = makeRepo(path.join(gitlinked, "nested"))
  gitIn(gitlinked, "add", "nested")
  gitIn(gitlinked, "commit", "-q", "-m", "gitlink")
  fs.appendFileSync(path.join(nested, ".git", "config"), "[diff]\n\texternal = ./run.sh\n")
  const bare = path.join(ws, "vendor", "bare.git")
  gitIn(ws, "clone", "-q", "--bare", path.join(base, "sources", "sub"), bare)
  fs.appendFileSync(path.join(bare, "config"), '[diff "x"]\n\ttextconv = ./run.sh\n')
  fs.mkdirSync(path.join(bare, "info"), { recursive: true })
  fs.writeFileSync(path.join(bare, "info", "attributes"), "* diff=x\n")
  fence = makePathFence(ws)
})

afterAll(() => {
  fs.rmSync(base, { recursive: true, force: true })
})

const classify = (line: string): Classification =>
  Effect.runSync(classifyBash(line, fence, { home: path.join(base, "home"), environment: suiteEnvironment }))

const verdict = (mode: ApprovalMode, classification: Classification): string => decide(mode, { classification, builtinEdit: false })._tag

describe("the hostile suite", () => {
  it("holds at least 500 hostile command lines, each once", () => {
    const lines = hostileLines.map((entry) => entry.line)
    expect(lines.length).toBeGreaterThanOrEqual(500)
    expect(new Set(lines).size).toBe(lines.length)
  })

  it.each(hostileLines.map((entry) => [entry.kind, entry.line] as const))("%s: %s never runs unasked under default or plan", (_kind, line) => {
    const classification = classify(line)
    expect(verdict("default", classification), classification.summary).not.toBe("Allow")
    expect(verdict("plan", classification), classification.summary).not.toBe("Allow")
  })

  it.each([...outside, ...protectedWrites])("asks (or refuses) even under full approval: %s", (line) => {
    const classification = classify(line)
    expect(verdict("full", classification), classification.summary).not.toBe("Allow")
  })
})

describe("protected files through the built-in edit and write tools", () => {
  const context = () => ({ fence, sessionId: "s", secrets: noSecrets, spill: () => Effect.succeed("/dev/null") })
  const targets = [".git/config", ".git/hooks/pre-commit", ".git/hooks/post-index-change", ".gitmodules", ".crystal/config.json", ".bashrc", ".profile", ".zshrc", ".envrc", ".npmrc", "lib/site.pth", ".gitconfig", "vendor/pager/.git/config", ".husky/pre-commit"]

  it.each(targets)("write %s asks under edit and full approval", (target) => {
    const classification = Effect.runSync(writeSpec.classify({ path: target, content: "x" }, context()))
    expect(classification.risk).toBe("high")
    expect(classification.protectedWrite).toBeDefined()
    for (const mode of ["edit", "full", "default"] as const) expect(decide(mode, { classification, builtinEdit: true })._tag).toBe("Ask")
  })

  it("edit of .git/config asks under edit approval; an ordinary file still runs", () => {
    const planted = Effect.runSync(editSpec.classify({ path: ".git/config", old_string: "a", new_string: "b" }, context()))
    expect(decide("edit", { classification: planted, builtinEdit: true })._tag).toBe("Ask")
    const ordinary = Effect.runSync(editSpec.classify({ path: "src/a.ts", old_string: "a", new_string: "b" }, context()))
    expect(ordinary.protectedWrite).toBeUndefined()
    expect(decide("edit", { classification: ordinary, builtinEdit: true })._tag).toBe("Allow")
  })

  it("a symbolic link to a hook is judged by where it points", () => {
    fs.symlinkSync(path.join(ws, ".git", "hooks", "pre-push"), path.join(ws, "innocent.txt"))
    const classification = Effect.runSync(writeSpec.classify({ path: "innocent.txt", content: "x" }, context()))
    expect(decide("edit", { classification, builtinEdit: true })._tag).toBe("Ask")
  })
})

/** Read-only controls deliberately asked now, with the reason: they count against the share. */
const askedOnPurpose = new Map<string, string>([["echo $(( $(wc -l < notes.md) + 1 ))", "a substitution's output is evaluated as arithmetic"]])

describe("read-only controls", () => {
  it("holds at least 60 controls", () => {
    expect(controls.length).toBeGreaterThanOrEqual(60)
  })

  it.each(controls.filter((line) => !askedOnPurpose.has(line)))("%s still runs unasked under default and plan", (line) => {
    const classification = classify(line)
    expect(verdict("default", classification), classification.summary).toBe("Allow")
    expect(verdict("plan", classification), classification.summary).toBe("Allow")
  })

  it("auto-allows at least 95% of the controls", () => {
    const allowed = controls.filter((line) => verdict("default", classify(line)) === "Allow").length
    expect(allowed / controls.length).toBeGreaterThanOrEqual(0.95)
    expect(controls.length - allowed).toBe([...askedOnPurpose.keys()].filter((line) => controls.includes(line)).length)
  })
})
