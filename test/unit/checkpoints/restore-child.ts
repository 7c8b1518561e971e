/**
 * A process that restores a workspace over and over, for the kill -9 test of restore temps (run
 * with Bun: `bun restore-child.ts WORKSPACE CRYSTAL_HOME`). Prints a line before the first restore.
 */
import { randomBytes } from "node:crypto"
import * as fs from "node:fs"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { openCheckpointStore } from "../../../src/checkpoints/open.ts"
import { defaultCheckpointSettings } from "../../../src/checkpoints/store.ts"

const [workspace, home] = process.argv.slice(2) as [string, string]
const opened = await Effect.runPromise(openCheckpointStore(workspace, home, { ...defaultCheckpointSettings, maxFileBytes: 1024 * 1024 }))
if ("_tag" in opened) throw new Error(opened.reason)
const paths = Array.from({ length: 200 }, (_, i) => `d${i % 4}/f${i}.bin`)
const change = (): void => {
  for (const relative of paths) fs.writeFileSync(path.join(workspace, relative), randomBytes(64 * 1024))
}
change()
const { id } = await Effect.runPromise(opened.snapshot())
process.stdout.write("restoring\n")
// Every path is written again on every restore, changed or not: the loop is all restore.
for (;;) {
  await Effect.runPromise(opened.restore(id, paths))
}
