/**
 * A process that snapshots a workspace over and over, changing many files between snapshots, for
 * the kill -9 test (run with Bun: `bun snapshot-child.ts WORKSPACE CRYSTAL_HOME`). Prints a line
 * after each snapshot.
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { openCheckpointStore } from "../../../src/checkpoints/open.ts"
import { defaultCheckpointSettings } from "../../../src/checkpoints/store.ts"

const [workspace, home] = process.argv.slice(2) as [string, string]
const opened = await Effect.runPromise(openCheckpointStore(workspace, home, defaultCheckpointSettings))
if ("_tag" in opened) throw new Error(opened.reason)
for (let round = 0; ; round++) {
  for (let i = 0; i < 300; i++) fs.writeFileSync(path.join(workspace, "files", `f${i}.bin`), randomBytes(16 * 1024))
  const { id } = await Effect.runPromise(opened.snapshot())
  await Effect.runPromise(opened.keep(`child/${round}`, [id], new Date()))
  process.stdout.write(`snapshot ${id}\n`)
}
