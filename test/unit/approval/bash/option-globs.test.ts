/**
 * A file name that becomes an option: bash expands `rg foo *` to `rg foo --pre=sh a` in a workspace
 * holding a file named `--pre=sh`, and rg then runs every file it searches as a shell script. Each
 * attack is first run for real (the planted program leaves a marker, or a file is written), then
 * the call must ask under `--approval plan` and `default`; the clean lines beside them still run
 * unasked.
 */
import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { expectAsks, expectRunsUnasked, runShell } from "../../../support/git-attacks.ts"
import { tempDir } from "../../../support/temp.ts"

interface Box {
  readonly ws: string
  /** Where a planted program leaves its mark. */
  readonly marker: string
}

/** A workspace holding `files` ({ name: content }), and a marker path outside it. */
const box = async (files: Readonly<Record<string, string>>): Promise<Box> => {
  const base = await tempDir("crystal-optglob-")
  const ws = path.join(base, "ws")
  fs.mkdirSync(ws)
  for (const [name, content] of Object.entries(files)) fs.writeFileSync(path.join(ws, name), content.replaceAll("MARKER", path.join(base, "marker")))
  return { ws, marker: path.join(base, "marker") }
}

/** Runs the line with the real tools and says whether the planted program left its mark. */
const runsPlanted = (b: Box, line: string): boolean => {
  fs.rmSync(b.marker, { force: true })
  runShell(b.ws, line)
  const ran = fs.existsSync(b.marker)
  fs.rmSync(b.marker, { force: true })
  return ran
}

const bashOutput = (cwd: string, line: string): string => execFileSync("bash", ["-c", line], { cwd, encoding: "utf8", stdio: ["ignore", "pipe", "ignore"], env: { PATH: process.env["PATH"] ?? "/usr/bin:/bin" } })

const asOption = (glob: string, name: string, program: string): RegExp =>
  new RegExp(`the glob ${glob.replace(/[*$]/g, "\\$&")} matches a file named ${name.replace(/[[\]$()]/g, "\\$&")}, which ${program} would read as an option`)

describe("rg: a file named --pre=sh", () => {
  const files = { "--pre=sh": "", "notes.txt": "touch MARKER\n" }

  it("rg foo * runs every searched file as a shell script, and asks", async () => {
    const b = await box(files)
    expect(runsPlanted(b, "rg foo *")).toBe(true)
    expectAsks(b.ws, "rg foo *", asOption("*", "--pre=sh", "rg"))
    expectAsks(b.ws, "rg -i foo *.txt *", asOption("*", "--pre=sh", "rg"))
    expectAsks(b.ws, "time rg foo *", asOption("*", "--pre=sh", "rg"))
  })

  it("a loop over a glob asks too (the loop variable holds the glob)", async () => {
    const b = await box(files)
    expect(runsPlanted(b, "for f in *; do rg foo $f; done")).toBe(true)
    expectAsks(b.ws, "for f in *; do rg foo $f; done", /the glob \* \(through \$f\) matches a file named --pre=sh, which rg would read as an option/)
    expectAsks(b.ws, "for f in *; do rg foo \"$f\"; done", /the glob \* \(through "\$f"\) matches a file named --pre=sh/)
    expectAsks(b.ws, "x=*; rg foo $x", /the glob \* \(through \$x\) matches a file named --pre=sh/)
    expectRunsUnasked(b.ws, "for f in ./*; do rg foo \"$f\"; done")
  })

  it("arguments only known at run time asked already (xargs input, a substitution)", async () => {
    const b = await box(files)
    expect(runsPlanted(b, "ls | xargs rg foo")).toBe(true)
    expectAsks(b.ws, "ls | xargs rg foo", /an argument only known at run time \(its input\) may be an option/)
    expectAsks(b.ws, "rg foo $(ls)", /an argument only known at run time \(\$\(ls\)\) may be an option/)
  })

  it("a glob in a deeper segment asks when a directory named like an option matches", async () => {
    const b = await box({ "notes.txt": "x\n" })
    fs.mkdirSync(path.join(b.ws, "--pre=sh"))
    fs.writeFileSync(path.join(b.ws, "--pre=sh", "x"), "")
    expectAsks(b.ws, "rg foo */x", /the glob \*\/x matches a directory named --pre=sh/)
  })

  it("still runs unasked: after --, a harmless option, no such file, a glob in a missing directory", async () => {
    const b = await box(files)
    expectRunsUnasked(b.ws, "rg foo -- *")
    expectRunsUnasked(b.ws, "rg foo *.txt")
    expectRunsUnasked(b.ws, "rg foo missing/*")
    expectRunsUnasked(b.ws, "find . -exec rg foo {} +")
    expectRunsUnasked(b.ws, "fd -x rg foo {}")
    const clean = await box({ "-i": "", "notes.txt": "foo\n" })
    expectRunsUnasked(clean.ws, "rg foo *")
  })

  it("fd --strip-cwd-prefix passes bare names to the command it runs, and asks", async () => {
    const b = await box(files)
    expectAsks(b.ws, "fd --strip-cwd-prefix -x rg foo", /fd --strip-cwd-prefix passes the command it runs file names/)
  })
})

describe("sort: files named --compress-program=sh and --output=FILE", () => {
  it("sort runs the compression program on its temporary files, and asks", async () => {
    const lines = Array.from({ length: 200_000 }, (_, index) => `: ${index}`).join("\n")
    // The planted line comes first: the first chunk always goes to a (compressed) temporary file, the last one may be merged from memory.
    const b = await box({ "--compress-program=sh": "", "big.txt": `touch MARKER\n${lines}\n` })
    expect(runsPlanted(b, "sort -S 64K * > /dev/null")).toBe(true)
    expectAsks(b.ws, "sort -S 64K *", asOption("*", "--compress-program=sh", "sort"))
  })

  it("sort * writes the file --output names, and asks", async () => {
    const b = await box({ "--output=victim.txt": "", "data.txt": "b\na\n", "victim.txt": "precious\n" })
    runShell(b.ws, "sort *")
    expect(fs.readFileSync(path.join(b.ws, "victim.txt"), "utf8")).not.toBe("precious\n")
    expectAsks(b.ws, "sort *", asOption("*", "--output=victim.txt", "sort"))
    expectRunsUnasked(b.ws, "sort -- *")
  })
})

describe("find: files named -delete and -fprint", () => {
  it("find * in a workspace whose only visible file is -delete deletes the hidden ones, and asks", async () => {
    const b = await box({ "-delete": "", ".env": "precious\n" })
    runShell(b.ws, "find *")
    expect(fs.existsSync(path.join(b.ws, ".env"))).toBe(false)
    const again = await box({ "-delete": "", ".env": "precious\n" })
    expectAsks(again.ws, "find *", asOption("*", "-delete", "find"))
    expectAsks(again.ws, "find . -name *", asOption("*", "-delete", "find"))
    expectRunsUnasked(again.ws, "find . -name '*'")
  })

  it("find * with files -fprint and victim.txt overwrites victim.txt, and asks", async () => {
    const b = await box({ "-fprint": "", "victim.txt": "precious\n" })
    runShell(b.ws, "find *")
    expect(fs.readFileSync(path.join(b.ws, "victim.txt"), "utf8")).not.toBe("precious\n")
    fs.writeFileSync(path.join(b.ws, "victim.txt"), "precious\n")
    expectAsks(b.ws, "find *", asOption("*", "-fprint", "find"))
  })
})

describe("sed: a file named -i", () => {
  it("sed s/a/b/ * edits every file in place, and asks", async () => {
    const b = await box({ "-i": "", "data.txt": "a\n" })
    runShell(b.ws, "sed s/a/b/ *")
    expect(fs.readFileSync(path.join(b.ws, "data.txt"), "utf8")).toBe("b\n")
    expectAsks(b.ws, "sed s/a/b/ *", asOption("*", "-i", "sed"))
    expectRunsUnasked(b.ws, "sed s/a/b/ -- *")
    const harmless = await box({ "-n": "", "data.txt": "a\n" })
    expectRunsUnasked(harmless.ws, "sed s/a/b/ *")
  })
})

describe("uniq and xxd: a glob given alone expands to an input and an output", () => {
  it("uniq * overwrites the second file, and asks", async () => {
    const b = await box({ "a.txt": "x\nx\n", "b.txt": "precious\n" })
    runShell(b.ws, "uniq *")
    expect(fs.readFileSync(path.join(b.ws, "b.txt"), "utf8")).toBe("x\n")
    expectAsks(b.ws, "uniq *", /a glob given alone may expand to an input and an output file/)
    expectAsks(b.ws, "xxd *", /a glob given alone may expand to an input and an output file/)
    expectRunsUnasked(b.ws, "uniq a.txt")
  })
})

describe("bash builtins", () => {
  it("printf * with a file named -vPATH sets PATH for the rest of the line, and asks", async () => {
    const b = await box({ "-vPATH": "", "zz": "" })
    expect(bashOutput(b.ws, "printf *; echo \"$PATH\"").trim()).toBe("zz")
    expectAsks(b.ws, "printf *", asOption("*", "-vPATH", "printf"))
    expectRunsUnasked(b.ws, "printf '%s\\n' *")
  })

  it("hash * with a file named -pevil makes ls run ./evil, and asks", async () => {
    const b = await box({ "-pevil": "", ls: "", evil: "#!/bin/sh\ntouch MARKER\n" })
    fs.chmodSync(path.join(b.ws, "evil"), 0o755)
    expect(runsPlanted(b, "hash *; ls")).toBe(true)
    expectAsks(b.ws, "hash *", asOption("*", "-pevil", "hash"))
  })

  it("set * with a file named -x turns on xtrace, and asks", async () => {
    const b = await box({ "-x": "" })
    expect(bashOutput(b.ws, "set *; echo $-")).toContain("x")
    expectAsks(b.ws, "set *", asOption("*", "-x", "set"))
    expectRunsUnasked(b.ws, "set -- *")
  })

  it("let * and test -v * evaluate a file name's subscript, which runs a command substitution, and ask", async () => {
    // A file name holds no slash: the substitution touches a file in the workspace.
    const b = await box({ "a[$(touch planted)]": "" })
    const planted = { ws: b.ws, marker: path.join(b.ws, "planted") }
    expect(runsPlanted(planted, "let *")).toBe(true)
    expect(runsPlanted(planted, "test -v *")).toBe(true)
    expect(runsPlanted(planted, "[ -v * ]")).toBe(true)
    expectAsks(b.ws, "let *", /evaluates the file names \* matches as arithmetic/)
    expectAsks(b.ws, "test -v *", /tests the variables named by the files \* matches/)
    expectAsks(b.ws, "[ -v * ]", /tests the variables named by the files \* matches/)
    const dashV = await box({ "-v": "", "b": "" })
    expectAsks(dashV.ws, "test *", asOption("*", "-v", "test"))
  })
})

describe("programs whose options never run a program or write", () => {
  it("cat, grep, ls, wc, head, du and stat take a file named like an option without asking", async () => {
    const b = await box({ "--pre=sh": "", "--files0-from=x": "", "notes.txt": "foo\n" })
    for (const line of ["cat *", "grep foo *", "ls *", "wc -l *", "head *", "du -sh *", "stat *", "sha256sum *"]) expectRunsUnasked(b.ws, line)
  })
})

describe("builtins that ran code unasked without any glob (found while covering the builtins)", () => {
  it("jobs -x runs its command; unset and wait -p evaluate a subscript; each asks", async () => {
    const b = await box({})
    const planted = { ws: b.ws, marker: path.join(b.ws, "planted") }
    expect(runsPlanted(planted, "jobs -x touch planted")).toBe(true)
    expect(runsPlanted(planted, "unset 'GROUPS[$(touch planted)]'")).toBe(true)
    expect(runsPlanted(planted, "sleep 0 & wait -n -p 'a[$(touch planted)]'")).toBe(true)
    expectAsks(b.ws, "jobs -x touch planted", /jobs: the option -x is not known to be read-only/)
    expectAsks(b.ws, "unset 'GROUPS[$(touch planted)]'", /evaluates the output of a substitution as arithmetic/)
    expectAsks(b.ws, "sleep 0 & wait -n -p 'a[$(touch planted)]'", /evaluates the output of a substitution as arithmetic/)
    expectAsks(b.ws, "unset *", /unsets the names \* matches, whose subscripts bash evaluates/)
    for (const line of ["jobs -l", "unset x y", "unset 'a[1]'", "unset -f f", "sleep 0 & wait", "sleep 0 & wait -n -p pid"]) expectRunsUnasked(b.ws, line)
  })
})

describe("arguments only known at run time given to sed and find (they asked for rg and sort already)", () => {
  it("ls | xargs sed s/a/b/ with a file named -i edits every file in place, and asks", async () => {
    const b = await box({ "-i": "", "data.txt": "a\n" })
    runShell(b.ws, "ls | xargs sed s/a/b/")
    expect(fs.readFileSync(path.join(b.ws, "data.txt"), "utf8")).toBe("b\n")
    expectAsks(b.ws, "ls | xargs sed s/a/b/", /passes sed an argument only known at run time, which may be an option/)
    expectAsks(b.ws, "for f in $(ls); do sed -n p $f; done", /passes sed an argument only known at run time/)
    expectRunsUnasked(b.ws, "ls | xargs sed -n p --")
    expectRunsUnasked(b.ws, "for f in data.txt notes.txt; do sed -n p $f; done")
  })

  it("ls | xargs find with a file named -delete deletes the hidden files, and asks", async () => {
    const b = await box({ "-delete": "", ".env": "precious\n" })
    runShell(b.ws, "ls | xargs find")
    expect(fs.existsSync(path.join(b.ws, ".env"))).toBe(false)
    expectAsks(b.ws, "ls | xargs find", /passes find an argument only known at run time, which may be an action/)
    expectRunsUnasked(b.ws, "find . -name '*.txt' -exec sed -n 1p {} +")
  })
})

describe("lsof: -D builds or updates its device cache file where the platform keeps one", () => {
  it("asks for -D in any letter group and for an argument only known at run time; common lines run unasked", async () => {
    const b = await box({})
    for (const line of ["lsof -Db/tmp/cache", "lsof -nPDu", "lsof -D b", "lsof $(cat flags)"]) expectAsks(b.ws, line, /lsof: .*(-D|device cache)/)
    for (const line of ["lsof -i :8080", "lsof -nP -iTCP -sTCP:LISTEN", "lsof -p 1", "lsof +D src", "lsof -- -D"]) expectRunsUnasked(b.ws, line)
  })
})
