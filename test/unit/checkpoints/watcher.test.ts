import { execFileSync } from "node:child_process"
import * as fs from "node:fs"
import { describe, expect, it } from "vitest"
import { openCheckpointStore, probeOf, type OpenOptions } from "../../../src/checkpoints/open.ts"
import { defaultCheckpointSettings, type CheckpointStoreShape } from "../../../src/checkpoints/store.ts"
import { defaultWatcherLimits } from "../../../src/checkpoints/watcher.ts"
import { fixture, run, write } from "./support.ts"

const open = async (workspace: string, home: string, options: OpenOptions = {}): Promise<CheckpointStoreShape> => {
  const opened = await run(openCheckpointStore(workspace, home, defaultCheckpointSettings, options))
  if ("_tag" in opened) throw new Error(opened.reason)
  return opened
}

/** Another process changes the workspace (a shell, as a tool or the operator would). */
const shell = (workspace: string, script: string): void => {
  execFileSync("sh", ["-c", script], { cwd: workspace })
}

/** A watched store and, to compare with, a store that scans every folder each time (its own home). */
const pair = async (files: Readonly<Record<string, string>>, options: OpenOptions = {}) => {
  const { workspace, home } = await fixture()
  write(workspace, files)
  // A barrier late on a loaded machine would only mean a full scan; the tests count full scans, so they wait longer.
  const watched = await open(workspace, home, { ...options, watcherLimits: { ...defaultWatcherLimits, barrierTimeoutMs: 20_000, ...options.watcherLimits } })
  const reference = await open(workspace, `${home}-reference`, { watch: false })
  fs.mkdirSync(`${home}-reference`, { recursive: true })
  const probe = probeOf(watched)
  if (probe?.watcher === undefined) throw new Error("the store has no watcher")
  return { workspace, watched, reference, probe, watcher: probe.watcher }
}

const files = (count: number, prefix: string): Record<string, string> =>
  Object.fromEntries(Array.from({ length: count }, (_, i) => [`${prefix}/f${i}.txt`, `file ${i}\n`]))

const snapshotId = async (store: CheckpointStoreShape): Promise<string> => (await run(store.snapshot())).id

describe("the checkpoint store's change feed (inotify)", () => {
  it("every change another process makes right after a snapshot is in the next one, and only the changed folders are looked at", async () => {
    const { workspace, watched, reference, probe, watcher } = await pair({ ...files(30, "src"), ...files(30, "lib/deep"), ...files(30, "docs"), "run.sh": "echo\n" })
    try {
      await snapshotId(watched)
      const steps: ReadonlyArray<readonly [string, string]> = [
        ["content", "printf 'changed\\n' > src/f1.txt"],
        ["same size in place", "printf 'file X\\n' > src/f2.txt"],
        ["mode", "chmod +x run.sh"],
        ["new file in a new nested folder, one burst", "mkdir -p a/b/c && echo > a/b/c/f"],
        ["deletion", "rm docs/f3.txt"],
        ["folder renamed", "mv lib/deep lib/moved"],
        ["a file in the renamed folder", "echo more >> lib/moved/f4.txt"],
        ["folder moved into a new one", "mkdir x && mv a x/a && echo y > x/a/b/c/g"],
        ["folder removed", "rm -r x"],
        ["file replaced by a folder", "rm run.sh && mkdir run.sh && echo z > run.sh/inner"],
        ["deep file after the folder rename", "echo again >> lib/moved/f5.txt"],
        ["folder replaced by another of the same name", "mv src src-old && mkdir src && echo n > src/new.txt"],
        ["a file in the replacing folder", "echo later > src/later.txt"]
      ]
      for (const [what, script] of steps) {
        shell(workspace, script)
        const id = await snapshotId(watched)
        expect(id, what).toBe(await snapshotId(reference))
        // Not a full scan: far fewer lstat calls than the 90-odd files.
        expect(probe.lastLstats, what).toBeLessThan(60)
      }
      expect(watcher.fullScans).toBe(1)
    } finally {
      watcher.close()
    }
  })

  it("an ignore file's change is seen: what it now ignores leaves the snapshot, what it no longer ignores comes back", async () => {
    const { workspace, watched, reference, watcher } = await pair({ "src/a.ts": "a\n", "src/gen/out.js": "o\n", "src/keep.log": "l\n", "top.txt": "t\n" })
    try {
      await snapshotId(watched)
      for (const [what, script] of [
        ["top .gitignore created", "printf 'gen/\\n' > .gitignore"],
        ["nested .ignore created", "printf '*.log\\n' > src/.ignore"],
        ["top .gitignore emptied in place", ": > .gitignore"],
        ["nested .ignore removed", "rm src/.ignore"]
      ] as const) {
        shell(workspace, script)
        expect(await snapshotId(watched), what).toBe(await snapshotId(reference))
      }
      expect(watcher.fullScans).toBe(1)
    } finally {
      watcher.close()
    }
  })

  it("nothing changed: the same id, and the disk is not walked (no lstat at all)", async () => {
    const { watched, probe, watcher } = await pair(files(50, "src"))
    try {
      const first = await snapshotId(watched)
      expect(probe.lastLstats).toBeGreaterThan(50)
      for (let i = 0; i < 3; i++) {
        expect(await snapshotId(watched)).toBe(first)
        expect(probe.lastLstats).toBe(0)
      }
    } finally {
      watcher.close()
    }
  })

  it("a failing watch makes the next snapshot a full scan, which sees the change", async () => {
    const { workspace, watched, reference, probe, watcher } = await pair(files(20, "src"))
    try {
      await snapshotId(watched)
      watcher.failForTest()
      shell(workspace, "printf 'after the failure\\n' > src/f7.txt")
      expect(await snapshotId(watched)).toBe(await snapshotId(reference))
      expect(watcher.fullScans).toBe(2)
      expect(probe.lastLstats).toBeGreaterThan(20)
      // Trusted again after the full scan.
      shell(workspace, "echo again >> src/f8.txt")
      expect(await snapshotId(watched)).toBe(await snapshotId(reference))
      expect(watcher.fullScans).toBe(2)
    } finally {
      watcher.close()
    }
  })

  it("a watch limit reached turns the feed off: every snapshot is a full scan and still sees every change", async () => {
    const { workspace, watched, reference, probe, watcher } = await pair({ ...files(5, "a"), ...files(5, "b"), ...files(5, "c") }, { watcherLimits: { ...defaultWatcherLimits, maxWatches: 2 } })
    await snapshotId(watched)
    expect(watcher.offReason).toMatch(/more than 2 folders/)
    expect(watcher.watchCount).toBe(0)
    shell(workspace, "echo changed > c/f1.txt")
    expect(await snapshotId(watched)).toBe(await snapshotId(reference))
    expect(probe.lastLstats).toBeGreaterThan(15)
  })

  it("a barrier that does not come back turns the feed off after one wait; that snapshot and the next are full scans", async () => {
    const { workspace, watched, reference, probe, watcher } = await pair(files(10, "a"), { watcherLimits: { ...defaultWatcherLimits, barrierTimeoutMs: 300 } })
    await snapshotId(watched)
    await snapshotId(watched)
    // The barrier's own watch, closed behind the feed's back: its events stop.
    ;(watcher as unknown as { barrier: { close: () => void } }).barrier.close()
    shell(workspace, "echo changed > a/f1.txt")
    expect(await snapshotId(watched)).toBe(await snapshotId(reference))
    expect(watcher.offReason).toMatch(/barrier/)
    expect(probe.lastLstats).toBeGreaterThan(10)
    shell(workspace, "echo again > a/f2.txt")
    expect(await snapshotId(watched)).toBe(await snapshotId(reference))
  })

  it("close() releases every watch; snapshots after it are full scans", async () => {
    const { workspace, watched, reference, watcher } = await pair(files(5, "a"))
    await snapshotId(watched)
    expect(watcher.watchCount).toBe(2)
    await run(watched.close?.() as never)
    expect(watcher.watchCount).toBe(0)
    shell(workspace, "echo changed > a/f1.txt")
    expect(await snapshotId(watched)).toBe(await snapshotId(reference))
  })
})
