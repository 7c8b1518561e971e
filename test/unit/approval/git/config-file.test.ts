/** The git config reader, checked against what the real `git config --list` makes of the same files. */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { parseGitConfig } from "../../../../src/approval/git/config-file.ts"
import { gitEnvironment } from "../../../support/git-repos.ts"
import { tempDir } from "../../../support/temp.ts"

/** `git config --list` of a file, as key/value pairs (a bare key lists as `key` without `=`). */
const gitsReading = (file: string): ReadonlyArray<readonly [string, string | undefined]> =>
  execFileSync("git", ["config", "--file", file, "--list", "-z"], { env: gitEnvironment, encoding: "utf8" })
    .split("\0")
    .filter((item) => item !== "")
    .map((item) => {
      const newline = item.indexOf("\n")
      return newline === -1 ? ([item, undefined] as const) : ([item.slice(0, newline), item.slice(newline + 1)] as const)
    })

const cases: ReadonlyArray<readonly [string, string]> = [
  ["plain sections and keys", "[core]\n\tpager = less\n\tEditor=vi\n[Diff]\n\texternal = ./x\n"],
  ["subsections keep their case, with escapes", '[diff "Tex\\"t"]\n\ttextconv = ./conv\n[includeIf "gitdir:/"]\n\tpath = ../evil\n'],
  ["an entry on the header line", "[core] fsmonitor = ./run.sh\n"],
  ["quotes, escapes, inline comments, inner spaces", '[core]\n\tpager = "less -R" ; comment\n\teditor = vi  # comment\n\taskpass = a\\tb "c#d"   \n\tsshCommand = "  spaced  "\n'],
  ["a bare key (boolean true) and an empty value", "[core]\n\tfsmonitor\n\tbare =\n"],
  ["a value continued on the next line", "[alias]\n\tst = !touch \\\n/tmp/x\n"],
  ["the old dotted subsection form", "[diff.x]\n\ttextconv = ./conv\n"],
  ["comments and blank lines", "# top\n; semi\n\n[core]\n  # inner\n\tpager = cat\n"]
]

describe("parseGitConfig", () => {
  it.each(cases)("reads %s as git does", async (_name, text) => {
    const file = path.join(await tempDir(), "config")
    fs.writeFileSync(file, text)
    const parsed = parseGitConfig(text)
    expect(parsed.ok).toBe(true)
    const ours = parsed.ok ? parsed.entries.map((entry) => [entry.key, entry.value] as const) : []
    expect(ours).toEqual(gitsReading(file))
  })

  it.each([
    ["an unterminated quote", '[core]\n\tpager = "less\n'],
    ["an unknown escape", "[core]\n\tpager = a\\qb\n"],
    ["a line that is no entry", "[core]\n\t= value\n"]
  ])("reports %s, which git rejects too", async (_name, text) => {
    const file = path.join(await tempDir(), "config")
    fs.writeFileSync(file, text)
    expect(parseGitConfig(text).ok).toBe(false)
    expect(() => gitsReading(file)).toThrow()
  })

  it("reports a key before any section (git lists it without a section, where no setting reads it): fail closed", () => {
    expect(parseGitConfig("pager = less\n").ok).toBe(false)
  })
})
