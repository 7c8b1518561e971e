/** Real git repositories with submodules for the approval tests and benches, made by the git on PATH. */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"

/** git without the machine's global or system config, with a fixed author, allowing file:// submodules. */
export const gitEnvironment: Readonly<Record<string, string>> = {
  PATH: process.env["PATH"] ?? "/usr/bin:/bin",
  GIT_CONFIG_NOSYSTEM: "1",
  GIT_CONFIG_GLOBAL: "/dev/null",
  GIT_AUTHOR_NAME: "Test",
  GIT_AUTHOR_EMAIL: "test@example.com",
  GIT_COMMITTER_NAME: "Test",
  GIT_COMMITTER_EMAIL: "test@example.com"
}

export const git = (cwd: string, ...args: ReadonlyArray<string>): string =>
  execFileSync("git", ["-c", "init.defaultBranch=main", "-c", "protocol.file.allow=always", ...args], {
    cwd,
    env: gitEnvironment,
    encoding: "utf8",
    stdio: ["ignore", "pipe", "pipe"]
  })

/** A repository at `dir` with `files` committed. */
export const makeRepo = (dir: string, files: Readonly<Record<string, string>> = { "README.md": "hello\n" }): string => {
  fs.mkdirSync(dir, { recursive: true })
  git(dir, "init", "-q")
  for (const [name, content] of Object.entries(files)) {
    fs.mkdirSync(path.dirname(path.join(dir, name)), { recursive: true })
    fs.writeFileSync(path.join(dir, name), content)
  }
  git(dir, "add", "-A")
  git(dir, "commit", "-q", "-m", "initial")
  return dir
}

/** Adds the repository at `source` as a submodule at `where` in `superproject`, and commits. */
export const addSubmodule = (superproject: string, source: string, where: string): void => {
  git(superproject, "submodule", "add", "-q", source, where)
  git(superproject, "commit", "-q", "-m", `add ${where}`)
}

/**
 * A repository at `superproject` with `count` submodules sub1…subN, cloned from sources made in
 * `sources`. With `nested`, sub1 has a submodule of its own (`sub1/inner`).
 */
export const makeSuperproject = (sources: string, superproject: string, count: number, options: { readonly nested?: boolean } = {}): string => {
  const inner = makeRepo(path.join(sources, "inner"), { "inner.txt": "inner\n" })
  for (let i = 1; i <= count; i++) {
    const source = makeRepo(path.join(sources, `sub${i}`), { [`file${i}.txt`]: `sub ${i}\n` })
    if (i === 1 && options.nested === true) addSubmodule(source, inner, "inner")
  }
  makeRepo(superproject, { "top.txt": "top\n" })
  for (let i = 1; i <= count; i++) addSubmodule(superproject, path.join(sources, `sub${i}`), `sub${i}`)
  if (options.nested === true) git(superproject, "submodule", "update", "-q", "--init", "--recursive")
  return superproject
}

/** Writes an executable hook script. */
export const writeHook = (file: string, body: string): void => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 })
}
