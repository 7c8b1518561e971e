/// <reference types="bun" />
/**
 * The shell classifier's cost on a long, realistic command line (500+ characters: cd, git, npm,
 * pipes, a for loop, find -exec, a here-document), each stage against the one before it in the
 * same run: parsing alone (src/shell), parse + analysis (what the line does, no file system), and
 * the whole classification with the path fence (one real-path lookup per distinct path). Each
 * figure is the best of several batches, so other work on the machine counts as little as it can.
 * The targets it had as a unit test: analysis well under 1 ms, classification under 5 ms.
 * Usage: bun scripts/bench/classify.ts [--batches N] [--runs N]
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { analyzeCommandLine } from "../../src/approval/bash/analyze.ts"
import { classifyBash } from "../../src/approval/bash/classify.ts"
import { makePathFence } from "../../src/approval/path-fence.ts"
import { parseShell } from "../../src/shell/parse.ts"
import { bestPerRun, flag, ratio, us } from "./measure.ts"

const batches = flag("--batches", 10)
const runs = flag("--runs", 50)

const command = [
  "cd src && git fetch origin && git checkout -b feature/update && npm install --save-dev vitest typescript",
  "npm run build 2>&1 | tee build.log | tail -50",
  "npx vitest run --reporter=verbose test/unit 2>&1 | grep -E '(PASS|FAIL)' | head -100",
  'for f in $(git diff --name-only HEAD~1); do echo "== $f"; wc -l "$f"; head -n 20 "$f"; done',
  "find . -name '*.ts' -not -path './node_modules/*' -exec grep -l TODO {} + | xargs -r sed -n '1,3p'",
  "cat > summary.txt <<EOF\nSummary: $(git log --oneline -5)\nEOF\necho done"
].join(" && ")

const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-classify-")))
const workspace = path.join(base, "ws")
const home = path.join(base, "home")
const crystal = path.join(base, "crystal")
for (const dir of [path.join(workspace, "src"), home, crystal]) fs.mkdirSync(dir, { recursive: true })
const fence = makePathFence(workspace, [])

const perRun = (run: () => unknown): number => bestPerRun(run, { batches, runs, warmUp: 300 })

const parse = perRun(() => parseShell(command))
const analyze = perRun(() => analyzeCommandLine(command, { workspace, home }))
const classify = perRun(() => Effect.runSync(classifyBash(command, fence, { home, protectedDirs: [crystal] })))

console.log(`classifying a ${command.length}-character command line (best of ${batches} batches of ${runs})`)
console.log(`  parse only                    : ${us(parse)}`)
console.log(`  parse + analysis              : ${us(analyze)}  (${ratio(analyze, parse)} the parse; target well under 1 ms)`)
console.log(`  classification with the fence : ${us(classify)}  (${ratio(classify, analyze)} the analysis; target under 5 ms)`)

fs.rmSync(base, { recursive: true, force: true })
