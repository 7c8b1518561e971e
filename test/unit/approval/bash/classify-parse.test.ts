import { describe, expect, it } from "vitest"
import { expandWord } from "../../../../src/approval/bash/analyze.ts"
import type { Arg } from "../../../../src/approval/bash/types.ts"
import { awkReachesOut } from "../../../../src/approval/bash/commands/files.ts"
import { sedEffects } from "../../../../src/approval/bash/commands/sed.ts"
import { parseShell, ShellSyntaxError, type Command, type Redirect, type Script, type Word } from "../../../../src/shell/parse.ts"

/** A compact text form of a parse tree: words after quote removal, `«…»` for run-time parts. */
const word = (w: Word): string => w.parts.map((part) => (part.kind === "lit" ? part.text : part.kind === "param" ? `$${part.name}` : "«…»")).join("")

const subs = (w: Word): string => (w.subs.length === 0 ? "" : `{${w.subs.map((sub) => `${sub.kind}:${render(sub.script)}`).join(" ")}}`)

const redirect = (r: Redirect): string =>
  r.heredoc !== undefined
    ? `${r.op}${r.heredoc.quoted ? "'" : ""}${r.heredoc.delimiter}[${r.heredoc.body}]${r.heredoc.subs.map((sub) => `{${render(sub.script)}}`).join("")}`
    : `${r.fd ?? ""}${r.op}${word(r.target)}${subs(r.target)}`

const command = (c: Command): string => {
  if (c.kind === "simple") {
    return `[${[...c.assigns.map((a) => `${a.name}=${a.value === undefined ? "" : word(a.value) + subs(a.value)}`), ...c.words.map((w) => word(w) + subs(w)), ...c.redirects.map(redirect)].join(" ")}]`
  }
  if (c.kind === "function") return `fn ${c.name} ${command(c.body)}`
  const inner = [...c.words.map((w) => word(w) + subs(w)), ...c.lists.map(render)].join(" ; ")
  const variable = c.variable === undefined ? "" : `${c.variable}: `
  return `${c.keyword}(${variable}${inner})${c.redirects.map((r) => " " + redirect(r)).join("")}`
}

const render = (script: Script): string =>
  script.items
    .map((item) => {
      const text = item.andOr.pipelines
        .map((p, i) => `${i > 0 ? ` ${item.andOr.ops[i - 1]} ` : ""}${p.negated ? "! " : ""}${p.commands.map(command).join(" | ")}`)
        .join("")
      return item.background ? `${text} &` : text
    })
    .join(" ; ")

const parsed = (source: string): string => render(parseShell(source))

describe("parseShell", () => {
  it.each([
    // words and quoting
    ["ls -la", "[ls -la]"],
    ["echo 'a b' \"c $d\" e\\ f $'g\\th' $\"loc\"", "[echo a b c $d e f g\th loc]"],
    ["echo \"a \\\"quoted\\\" \\$x \\\\ \\z\"", '[echo a "quoted" $x \\ \\z]'],
    ["r''m -rf /", "[rm -rf /]"],
    ['"rm" -rf /', "[rm -rf /]"],
    ["\\rm x", "[rm x]"],
    ["echo ''", "[echo ]"],
    ["echo $'\\x72\\x6d \\u00e9 \\101 \\cA'", "[echo rm é A \u0001]"],
    ["echo a#b # comment", "[echo a#b]"],
    ["# only a comment", ""],
    ["ls \\\n  -la", "[ls -la]"],
    ["echo $HOME ${HOME} $1 $@ $? ${#x} ${x:-y}", "[echo $HOME $HOME $1 $@ $? «…» «…»]"],
    ["echo a{b,c}d ~/x", "[echo a{b,c}d ~/x]"],
    // lists and pipelines
    ["a | b |& c", "[a] | [b] | [c]"],
    ["a && b || c; d & e\nf", "[a] && [b] || [c] ; [d] & ; [e] ; [f]"],
    ["! grep x f", "! [grep x f]"],
    ["a &&\n  b", "[a] && [b]"],
    ["a |\n  b", "[a] | [b]"],
    // compound commands
    ["(cd / && ls)", "(([cd /] && [ls])"],
    ["{ a; b; } > out", "{([a] ; [b]) >out"],
    ["if a; then b; elif c; then d; else e; fi", "if([a] ; [b] ; [c] ; [d] ; [e])"],
    ["while read l; do echo $l; done < f", "while([read l] ; [echo $l]) <f"],
    ["until false; do :; done", "until([false] ; [:])"],
    ["for f in *.ts src/*; do wc $f; done", "for(f: *.ts ; src/* ; [wc $f])"],
    ["for f; do echo; done", "for([echo])"],
    ["for ((i=0;i<3;i++)); do echo $i; done", "for(«…» ; [echo $i])"],
    ["case $x in a|b) one;; (c) two;& *) three;; esac", "case($x ; a ; b ; c ; * ; [one] ; [two] ; [three])"],
    ["[[ -f x && $y < z ]] && echo", "[[(-f ; x ; $y ; z) && [echo]"],
    ["(( i++ ))", "(((«…»)"],
    ["f() { echo; }; f", "fn f {([echo]) ; [f]"],
    ["function g { ls; }", "fn g {([ls])"],
    [":(){ :|:& };:", "fn : {([:] | [:] &) ; [:]"],
    // substitutions
    ["echo $(ls $(pwd))", "[echo «…»{command:[ls «…»{command:[pwd]}]}]"],
    ["echo `ls \\`pwd\\``", "[echo «…»{command:[ls «…»{command:[pwd]}]}]"],
    ['echo "$(ls)"', "[echo «…»{command:[ls]}]"],
    ["echo $(case x in a) ls;; esac)", "[echo «…»{command:case(x ; a ; [ls])}]"],
    ["echo $(( 1 + $(id -u) ))", "[echo «…»{command:[id -u]}]"],
    ["echo ${X:-$(rm -rf /)}", "[echo «…»{command:[rm -rf /]}]"],
    ["diff <(ls a) >(cat)", "[diff «…»{process-in:[ls a]} «…»{process-out:[cat]}]"],
    // assignments
    ["A=1 B=$(x) cmd arg", "[A=1 B=«…»{command:[x]} cmd arg]"],
    ["X= cmd", "[X= cmd]"],
    ["arr=(a $(b) c); echo", "[arr=«…»{command:[b]}] ; [echo]"],
    ["echo A=1", "[echo A=1]"],
    // redirections
    ["cmd > out 2>&1 >> log 2> err &> all &>> all2 >| clob <> rw < in", "[cmd >out 2>&1 >>log 2>err &>all &>>all2 >|clob <>rw <in]"],
    ["cmd 3>&- 0<&3 >&2", "[cmd 3>&- 0<&3 >&2]"],
    ["cat <<< \"here $x\"", "[cat <<<here $x]"],
    ["cat <<EOF\nhello $x\nEOF", "[cat <<EOF[hello $x\n]]"],
    ["cat <<'EOF'\n$(not run)\nEOF", "[cat <<'EOF[$(not run)\n]]"],
    ["cat <<\\EOF\nx\nEOF", "[cat <<'EOF[x\n]]"],
    ["cat <<-EOF\n\tindented\n\tEOF", "[cat <<-EOF[indented\n]]"],
    ["cat <<EOF\n$(rm -rf /)\nEOF", "[cat <<EOF[$(rm -rf /)\n]{[rm -rf /]}]"],
    ["cat <<A <<B | wc\na\nA\nb\nB\necho after", "[cat <<A[a\n] <<B[b\n]] | [wc] ; [echo after]"],
    ["cat <<EOF > out; ls\nbody\nEOF\npwd", "[cat <<EOF[body\n] >out] ; [ls] ; [pwd]"]
  ])("%j", (source, expected) => {
    expect(parsed(source)).toBe(expected)
  })

  it.each([
    "echo 'unterminated",
    'echo "unterminated',
    "echo $'unterminated",
    "echo `unterminated",
    "echo $(unterminated",
    "echo ${unterminated",
    "echo $(( 1 +",
    "if true; then ls",
    "if true; ls; fi",
    "while true; do ls",
    "for x in a b; echo; done",
    "case x in a) ls",
    "{ ls",
    "(ls",
    "ls )",
    "ls |",
    "ls &&",
    "| ls",
    "; ls",
    "ls > ",
    "cat <",
    "fi",
    "done",
    "then",
    "}",
    "a=(1 2",
    "[[ -f x",
    "f() ",
    "echo ( x )"
  ])("rejects %j", (source) => {
    expect(() => parseShell(source)).toThrow(ShellSyntaxError)
  })

  it("rejects absurd nesting instead of overflowing the stack", () => {
    expect(() => parseShell(`${"$(".repeat(200)}ls${")".repeat(200)}`)).toThrow(ShellSyntaxError)
  })
})

describe("expandWord", () => {
  const expand = (source: string, options: { readonly pwd?: string; readonly bound?: Record<string, ReadonlyArray<string>> } = {}): ReadonlyArray<Pick<Arg, "value" | "glob">> => {
    const script = parseShell(`x ${source}`)
    const first = script.items[0]?.andOr.pipelines[0]?.commands[0]
    if (first?.kind !== "simple") throw new Error("not a simple command")
    const target = first.words[1]
    if (target === undefined) throw new Error("no word")
    const result = expandWord(
      target,
      {
        home: "/home/me",
        pwd: options.pwd,
        binding: (name) => options.bound?.[name]?.map((value) => ({ value, glob: /[*?[]/.test(value) }))
      },
      false
    )
    return result.flatMap((arg) => (arg.candidates ?? [arg]).map((each): Pick<Arg, "value" | "glob"> => ({ value: each.value, glob: each.glob })))
  }

  it.each([
    ["plain", [{ value: "plain", glob: false }]],
    ["'quoted *'", [{ value: "quoted *", glob: false }]],
    ["src/*.ts", [{ value: "src/*.ts", glob: true }]],
    ['"*"', [{ value: "*", glob: false }]],
    ["~", [{ value: "/home/me", glob: false }]],
    ["~/.ssh", [{ value: "/home/me/.ssh", glob: false }]],
    ['"~/x"', [{ value: "~/x", glob: false }]],
    ["$HOME/x", [{ value: "/home/me/x", glob: false }]],
    ['"${HOME}"/*', [{ value: "/home/me/*", glob: true }]],
    ["of=~/disk", [{ value: "of=/home/me/disk", glob: false }]],
    ["~other/x", [{ value: undefined, glob: false }]],
    ["$OTHER/x", [{ value: undefined, glob: false }]],
    ["$(pwd)", [{ value: undefined, glob: false }]],
    [
      "{/,build}",
      [
        { value: "/", glob: false },
        { value: "build", glob: false }
      ]
    ],
    [
      "a{b,c{d,e}}",
      [
        { value: "ab", glob: false },
        { value: "acd", glob: false },
        { value: "ace", glob: false }
      ]
    ],
    [
      "f{1..3}",
      [
        { value: "f1", glob: false },
        { value: "f2", glob: false },
        { value: "f3", glob: false }
      ]
    ],
    ["'{a,b}'", [{ value: "{a,b}", glob: false }]],
    ["{}", [{ value: "{}", glob: false }]],
    ["{a}", [{ value: "{a}", glob: false }]]
  ] as const)("%s", (source, expected) => {
    expect(expand(source)).toEqual(expected)
  })

  it("expands $PWD when the working directory is known", () => {
    expect(expand("$PWD/x", { pwd: "/work" })).toEqual([{ value: "/work/x", glob: false }])
    expect(expand("$PWD/x")).toEqual([{ value: undefined, glob: false }])
  })

  it("gives a loop variable's candidates", () => {
    expect(expand('"$f".bak', { bound: { f: ["a", "src/*.ts"] } })).toEqual([
      { value: "a.bak", glob: false },
      { value: "src/*.ts.bak", glob: true }
    ])
  })

  it("turns a process substitution into a pipe name", () => {
    expect(expand("<(ls)")).toEqual([{ value: "/dev/fd/63", glob: false }])
  })
})

describe("sedEffects", () => {
  it.each([
    ["s/a/b/g", { writes: [], reads: [], executes: false }],
    ["1,5p", { writes: [], reads: [], executes: false }],
    ["/x/d;s|a|b|", { writes: [], reads: [], executes: false }],
    ["s/a/b/w out.txt", { writes: ["out.txt"], reads: [], executes: false }],
    ["s/a/b/e", { writes: [], reads: [], executes: true }],
    ["w /etc/passwd", { writes: ["/etc/passwd"], reads: [], executes: false }],
    ["1e rm -rf /", { writes: [], reads: [], executes: true }],
    ["r /etc/shadow", { writes: [], reads: ["/etc/shadow"], executes: false }],
    ["/start/,/end/{s/x/y/;p}", { writes: [], reads: [], executes: false }],
    ["$a\\\nappended", { writes: [], reads: [], executes: false }],
    ["y/abc/xyz/", { writes: [], reads: [], executes: false }],
    ["s/a/b/w /dev/stdout", { writes: [], reads: [], executes: false }]
  ])("%j", (script, expected) => {
    expect(sedEffects(script)).toEqual(expected)
  })

  it("gives up (undefined) on scripts it cannot read", () => {
    expect(sedEffects("s/unterminated")).toBeUndefined()
    expect(sedEffects("k")).toBeUndefined()
  })
})

describe("awkReachesOut", () => {
  it.each([
    ["{print $1}", false],
    ["NR > 1 { print $2 }", false],
    ["/foo|bar/ { n++ } END { print n }", false],
    ['$1 == "a|b" { print }', false],
    ["{ x = a || b; print x }", false],
    ['{ system("rm -rf /") }', true],
    ['{ print | "sh" }', true],
    ['{ "date" | getline d; print d }', true],
    ['{ print > "out.txt" }', true],
    ['{ printf "%s", $0 >> "log" }', true]
  ])("%j → %s", (program, expected) => {
    expect(awkReachesOut(program)).toBe(expected)
  })
})
