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
  execFileSync("git", ["config", "--file", file, "--list", "-z"], { env: gitEnvironment, encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] })
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
  ["comments and blank lines", "# top\n; semi\n\n[core]\n  # inner\n\tpager = cat\n"],
  // A backslash ends a value's line only outside a comment (the review's F1): git reads both keys.
  ["a backslash inside a comment, which does not continue the line", '[core]\n\tquotepath = false ; \\\n\tfsmonitor = "touch /tmp/marker; false"\n'],
  ["a backslash inside a # comment", "[core]\n\tpager = less # \\\n\teditor = vi\n"],
  ["a backslash at the end of a comment line", "# note \\\n[core]\n\tpager = less\n"],
  ["a quoted value continued on the next line", '[core]\n\tpager = "x ; \\\n\tfsmonitor = y"\n'],
  ["an unquoted value continued after a quoted part", '[core]\n\tpager = "x" \\\n\tfsmonitor = y\n'],
  ["a value continued at the end of the file", "[core]\n\tpager = a\\"],
  ["comment characters inside quotes, a quote inside a comment", '[core]\n\tpager = "a ; b" # c\n\teditor = a # "b\n'],
  ["a tab and a CR inside an unquoted value (each becomes a space)", "[core]\n\tpager = a\tb\n\teditor = b\rc\n"],
  ["a vertical tab and a form feed, which are not white space to git", "[core]\n\tpager = \va\fb\v\n"],
  ["CR LF line ends and a continued CR LF line", "[core]\r\n\tpager=a\\\r\nb\r\n\tfsmonitor\r\n"],
  ["a NUL inside a value (git stops there)", "[core]\n\tpager = a\0b\n"],
  ["a UTF-8 byte order mark", "\uFEFF[core]\n\tpager = a\n"],
  ["a subsection with escaped quotes and backslashes", '[core "a\\\\b\\"c\\x"]\n\tpager = a\n'],
  ["keys on the header line, without spaces", '[core "a"]x\n[core]pager=1\n'],
  ["a bare key followed by spaces", "[core]\n\tfsmonitor\t \n"]
]

describe("parseGitConfig", () => {
  it.each(cases)("reads %s as git does", async (_name, text) => {
    const file = path.join(await tempDir(), "config")
    fs.writeFileSync(file, text)
    const parsed = parseGitConfig(fs.readFileSync(file))
    expect(parsed.ok, parsed.ok ? "" : parsed.line).toBe(true)
    const ours = parsed.ok ? parsed.entries.map((entry) => [entry.key, entry.value] as const) : []
    expect(ours).toEqual(gitsReading(file))
  })

  it.each([
    ["an unterminated quote", '[core]\n\tpager = "less\n'],
    ["an unknown escape", "[core]\n\tpager = a\\qb\n"],
    ["a line that is no entry", "[core]\n\t= value\n"],
    ["a space before a section name", "[ core ]\n\tpager = a\n"],
    ["a space after a section name", "[core ]\n\tpager = a\n"],
    ["text between a subsection's quote and the bracket", '[core "a"b]\n\tpager = a\n'],
    ["a vertical tab before a section", "\v[core]\n\tpager = a\n"],
    ["a vertical tab before a key", "[core]\n\v\tfsmonitor = a\n"],
    ["a key followed by a comment", "[core]\n\tfsmonitor ; x\n"],
    ["an underscore in a key", "[core]\n\tfs_monitor = x\n"],
    ["an empty section", "[]\n\tpager = a\n"],
    ["a part of a byte order mark", "\xEF\xBBx[core]\n"]
  ])("reports %s, which git rejects too", async (_name, text) => {
    const file = path.join(await tempDir(), "config")
    const bytes = Buffer.from(text, "latin1")
    fs.writeFileSync(file, bytes)
    expect(parseGitConfig(bytes).ok).toBe(false)
    expect(() => gitsReading(file)).toThrow()
  })

  it("reports a value that is not UTF-8, which git reads: a path in it could not be named exactly (fail closed)", async () => {
    const bytes = Buffer.from("[submodule \"x\"]\n\tpath = vendor/\xff\n", "latin1")
    const file = path.join(await tempDir(), "config")
    fs.writeFileSync(file, bytes)
    expect(gitsReading(file)).toHaveLength(1)
    expect(parseGitConfig(bytes).ok).toBe(false)
  })

  it("reports a key before any section (git lists it without a section, where no setting reads it): fail closed", () => {
    expect(parseGitConfig("pager = less\n").ok).toBe(false)
  })
})
