/// <reference types="bun" />
/**
 * What listing a glob's directory (bash/option-globs.ts) costs a classification: `rg foo *`, whose
 * glob stands where rg reads options and is listed, against `rg foo -- *`, whose glob is not, in
 * the same run; in a workspace of 20 files and one of 10,000. Each figure is the best of several
 * batches. No target was set; this says what the check costs.
 * Usage: bun scripts/bench/option-globs.ts [--batches N] [--runs N]
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { classifyBash } from "../../src/approval/bash/classify.ts"
import { makePathFence } from "../../src/approval/path-fence.ts"
import { bestPerRun, flag, ratio, us } from "./measure.ts"

const batches = flag("--batches", 10)
const runs = flag("--runs", 50)
const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-optglob-")))

const perRun = (run: () => unknown): number => bestPerRun(run, { batches, runs, warmUp: 100 })

for (const count of [20, 10_000]) {
  const workspace = path.join(base, `ws-${count}`)
  fs.mkdirSync(workspace)
  for (let i = 0; i < count; i++) fs.writeFileSync(path.join(workspace, `file-${i}.txt`), "")
  const fence = makePathFence(workspace, [])
  const classify = (line: string) => (): unknown => Effect.runSync(classifyBash(line, fence, { home: base }))
  const unlisted = perRun(classify("rg foo -- *"))
  const listed = perRun(classify("rg foo *"))
  console.log(`${count} files: rg foo -- * ${us(unlisted)}, rg foo * ${us(listed)} (${ratio(listed, unlisted)})`)
}
fs.rmSync(base, { recursive: true, force: true })
