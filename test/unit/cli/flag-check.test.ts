import { describe, expect, it } from "vitest"
import { parseFast } from "../../../src/cli/fast-args.ts"
import { checkSessionArgs, fullCliDisagreement } from "../../../src/cli/flag-check.ts"
import { parseFull } from "./parse-full.ts"

const flagList =
  "--model, --mode, --approval, --disable-tool, --prompt-set, --prompt-attachments, --prompt-attachment, --image, --plan, --output-schema, --format, --resume, --continue, --trust-project-tools"

/** argv → the one line it gets; every one of these is declined by the fast path first. */
const rejected: ReadonlyArray<readonly [ReadonlyArray<string>, string]> = [
  [["run", "--mode", "bogus", "hi"], 'crystal run: --mode "bogus" is not one of plan, work'],
  [["run", "--mode=bogus", "hi"], 'crystal run: --mode "bogus" is not one of plan, work'],
  [["run", "--mode", "PLAN", "hi"], 'crystal run: --mode "PLAN" is not one of plan, work'],
  [["run", "--approval", "yolo", "hi"], 'crystal run: --approval "yolo" is not one of plan, default, edit, review, audit, full'],
  [["run", "--approval=", "hi"], "crystal run: --approval needs a value: one of plan, default, edit, review, audit, full"],
  [["run", "--format", "xml", "hi"], 'crystal run: --format "xml" is not one of text, json'],
  [["run", "--prompt-attachments", "maybe", "hi"], 'crystal run: --prompt-attachments "maybe" is not one of on, off'],
  [["--format", "xml"], 'crystal: --format "xml" is not one of text, json'],
  [["space", "--mode", "x"], 'crystal space: --mode "x" is not one of plan, work'],
  [["--output-schema", "s.json"], "crystal: --output-schema is for crystal run (one structured answer for a script); an interactive session does not take it"],
  [["space", "--output-schema=s.json", "dir"], "crystal space: --output-schema is for crystal run (one structured answer for a script); an interactive session does not take it"],
  [["run", "--bogus", "x", "hi"], `crystal run: unknown flag --bogus (its flags: ${flagList}; --help lists them)`],
  [["run", "--bogus=1", "hi"], `crystal run: unknown flag --bogus (its flags: ${flagList}; --help lists them)`],
  [["run", "-x"], `crystal run: unknown flag -x (its flags: ${flagList}; --help lists them)`],
  [["run", "-m", "local/x", "hi"], `crystal run: unknown flag -m (its flags: ${flagList}; --help lists them)`],
  [["--bogus"], `crystal: unknown flag --bogus (its flags: ${flagList}; --help lists them)`],
  [["space", "--yes", "dir"], `crystal space: unknown flag --yes (its flags: ${flagList}; --help lists them)`],
  [["run", "--mode"], "crystal run: --mode needs a value: one of plan, work"],
  [["run", "--mode", "--continue", "hi"], "crystal run: --mode needs a value: one of plan, work"],
  [["run", "--model"], "crystal run: --model needs a value (--model PROVIDER/MODEL)"],
  [["run", "--model", "-x", "hi"], "crystal run: --model needs a value (--model PROVIDER/MODEL)"],
  [["run", "--resume"], "crystal run: --resume needs a value (--resume ID)"],
  [["run", "--model=", "hi"], "crystal run: --model needs a value (--model PROVIDER/MODEL)"],
  [["run", "--resume=", "hi"], "crystal run: --resume needs a value (--resume ID)"],
  [["run", "--disable-tool=", "hi"], "crystal run: --disable-tool needs a value (--disable-tool NAME)"],
  [["run", "--model", "--", "hi"], "crystal run: --model needs a value (--model PROVIDER/MODEL)"],
  [["run", "--disable-tool"], "crystal run: --disable-tool needs a value (--disable-tool NAME)"],
  [["run", "--prompt-set"], "crystal run: --prompt-set needs a value (--prompt-set NAME)"],
  [["run", "--prompt-attachment", "--mode", "plan"], "crystal run: --prompt-attachment needs a value (--prompt-attachment NAME)"],
  [["--resume"], "crystal: --resume needs a value (--resume ID)"],
  [["run", "--continue=yes", "hi"], 'crystal run: --continue takes no value (got "yes")'],
  [["run", "--continue", "--continue", "hi"], "crystal run: --continue is given twice"],
  [["run", "--mode", "plan", "--mode", "work", "hi"], 'crystal run: --mode is given twice ("plan" and "work")'],
  [["run", "--model=a/b", "--model", "c/d", "hi"], 'crystal run: --model is given twice ("a/b" and "c/d")'],
  [["run", "a", "b"], 'crystal run: one prompt only, got 2 ("a", "b"); quote a prompt with spaces'],
  [["run", "a", "--", "b"], 'crystal run: one prompt only, got 2 ("a", "b"); quote a prompt with spaces'],
  [["space", "a", "b"], 'crystal space: one directory only, got 2 ("a", "b"); quote a prompt with spaces'],
  [["bogus"], 'crystal: unknown command "bogus" (commands: run, space, sessions, promptsets, prompt-attachments, plugins, tools, mcp, agents, acp, checkpoints, rewind)'],
  [["--continue", "extra"], 'crystal: unknown command "extra" (commands: run, space, sessions, promptsets, prompt-attachments, plugins, tools, mcp, agents, acp, checkpoints, rewind)'],
  [["Run"], 'crystal: unknown command "Run" (commands: run, space, sessions, promptsets, prompt-attachments, plugins, tools, mcp, agents, acp, checkpoints, rewind)']
]

/** Lines left to @effect/cli (help, version, completions, other commands) or fine as they are. */
const passed: ReadonlyArray<ReadonlyArray<string>> = [
  ["run", "--help"],
  ["--help"],
  ["-h"],
  ["run", "--mode", "bogus", "--help"],
  ["--completions", "bash"],
  ["sessions", "list", "--bogus"],
  ["promptsets", "enable"],
  ["run", "--", "-x"],
  ["run", "-"],
  ["run", "--mode", "plan", "--format=json", "--disable-tool", "grep", "--disable-tool", "tree", "hi"],
  ["run", "- a prompt that starts with a dash"],
  ["run", "--model=-x", "hi"]
]

describe("bad session flags", () => {
  it.each(rejected)("%j → one line naming the flag, the value and the choices", (argv, message) => {
    expect(parseFast(argv)).toBeUndefined()
    expect(checkSessionArgs(argv)).toEqual({ message, json: false })
  })

  it.each(passed)("%j is left alone", (...argv) => {
    expect(checkSessionArgs(argv)).toBeUndefined()
  })

  /**
   * Session lines that reach @effect/cli itself (the fast path declines --log-level): whatever it
   * parses runs only when it is what the session flags say; where it reads them otherwise (no flag
   * after a word that starts with a dash) the line is refused instead of a flag being dropped.
   */
  it.each([
    [["run", "--log-level", "debug", "-5", "--mode", "plan"], "--mode"],
    [["run", "--log-level=info", "- a dash prompt", "--approval", "audit"], "--approval"],
    [["--log-level", "debug", "run", "-5", "--mode", "plan"], "--mode"],
    [["run", "--log-level", "debug", "-5", "--disable-tool", "grep"], undefined],
    [["run", "--log-level", "debug", "hi", "--mode", "plan"], undefined],
    [["run", "--log-level", "debug", "--mode", "plan", "--", "-5"], undefined],
    [["--log-level", "debug", "--mode", "plan"], undefined],
    [["space", "--log-level", "debug", "../other", "--continue"], undefined]
  ] as const)("%j through @effect/cli: refused when it drops %s", async (argv, dropped) => {
    expect(parseFast(argv)).toBeUndefined()
    expect(checkSessionArgs(argv)).toBeUndefined()
    const full = await parseFull(argv)
    expect(full).toBeDefined()
    const problem = fullCliDisagreement(argv, full!)
    if (dropped === undefined) expect(problem).toBeUndefined()
    else expect(problem?.message).toMatch(new RegExp(`^crystal( run)?: ${dropped} would not be read as given .*put the flags first and such a prompt or directory after --$`))
  })

  it.each([
    [["run", "--format", "json", "--mode", "x", "hi"]],
    [["run", "--format=json", "--bogus"]],
    [["run", "--mode", "x", "--format", "json"]]
  ])("%j under --format json → the JSON error event", (argv) => {
    expect(checkSessionArgs(argv)?.json).toBe(true)
  })

  it("names --format's own bad value in text (json was not asked for)", () => {
    expect(checkSessionArgs(["run", "--format", "jsonl", "hi"])).toEqual({ message: 'crystal run: --format "jsonl" is not one of text, json', json: false })
  })
})
