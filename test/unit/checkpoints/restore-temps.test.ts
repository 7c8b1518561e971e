import { spawn } from "node:child_process"
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { storeDirFor } from "../../../src/checkpoints/open.ts"
import { fixture, openStore, treeState, write } from "./support.ts"

const bun = path.resolve(import.meta.dirname, "../../../node_modules/.bin/bun")

/** Runs `args` with Bun, waits for its first line, lets it run `ms` more, then SIGKILL; resolves with its pid. */
const killAfterFirstLine = (args: ReadonlyArray<string>, ms: number): Promise<number> =>
  new Promise((resolve, reject) => {
    const child = spawn(bun, args, { stdio: ["ignore", "pipe", "pipe"] })
    let stderr = ""
    child.stderr.on("data", (chunk: Buffer) => (stderr += chunk.toString()))
    child.stdout.once("data", () => setTimeout(() => child.kill("SIGKILL"), ms))
    child.on("exit", (_code, signal) => (signal === "SIGKILL" ? resolve(child.pid as number) : reject(new Error(`the child ended by itself: ${stderr}`))))
  })

const restoreTemps = (root: string): Array<string> =>
  Object.keys(treeState(root)).filter((relative) => path.basename(relative).startsWith(".crystal-restore."))

describe("restore temps left by a kill", () => {
  it("the next open removes a dead process's restore temps in the folders its live file names, and nothing else", async () => {
    const { workspace, home } = await fixture()
    write(workspace, { "a.txt": "a\n", "sub/b.txt": "b\n", "other/c.txt": "c\n" })
    const outside = path.join(path.dirname(workspace), "outside")
    fs.mkdirSync(outside)
    fs.symlinkSync(outside, path.join(workspace, "link"))
    await openStore(workspace, home)
    const liveDir = path.join(storeDirFor(workspace, home), "live")
    // A real process, killed after it wrote its temps (as a kill between a restore's write and its rename leaves them).
    const script = `
      const fs = require("node:fs"), path = require("node:path")
      const [workspace, outside, liveDir] = process.argv.slice(1)
      const temp = (dir) => fs.writeFileSync(path.join(dir, ".crystal-restore." + process.pid + "." + Date.now() + ".0.tmp"), "half")
      temp(workspace); temp(path.join(workspace, "sub")); temp(outside)
      fs.mkdirSync(path.join(workspace, "other", ".crystal-restore." + process.pid + ".1.2.tmp"))
      fs.symlinkSync(path.join(outside, "kept"), path.join(workspace, "sub", ".crystal-restore." + process.pid + ".3.4.tmp"))
      fs.writeFileSync(path.join(workspace, "sub", ".crystal-restore." + process.pid + ".x.0.tmp"), "not the pattern")
      fs.writeFileSync(path.join(workspace, "other", ".crystal-restore." + process.pid + ".5.6.tmp"), "a folder not named")
      fs.writeFileSync(path.join(liveDir, process.pid + ".0.json"), JSON.stringify({ ids: [], writingSince: null, restoringIn: ["", "sub", "link", "../outside", "/"] }))
      console.log("written")
      setInterval(() => {}, 1000)
    `
    fs.writeFileSync(path.join(outside, "kept"), "kept\n")
    const pid = await killAfterFirstLine(["-e", script, workspace, outside, liveDir], 0)
    // A temp of this (running) process, in a named folder, must stay too.
    fs.writeFileSync(path.join(workspace, `.crystal-restore.${process.pid}.7.8.tmp`), "mine")
    const before = treeState(workspace)
    const outsideBefore = treeState(outside)
    expect(restoreTemps(workspace).filter((relative) => relative.includes(`.${pid}.`))).toHaveLength(6)

    await openStore(workspace, home)
    // Gone: the two regular files of the exact pattern in named folders inside the workspace. Kept: everything else.
    const gone = Object.keys(before).filter((relative) => /^(sub\/)?\.crystal-restore\.\d+\.\d+\.0\.tmp$/.test(relative) && relative.includes(`.${pid}.`))
    expect(gone).toHaveLength(2)
    expect(treeState(workspace)).toEqual(Object.fromEntries(Object.entries(before).filter(([relative]) => !gone.includes(relative))))
    expect(restoreTemps(workspace).sort()).toEqual(
      [`.crystal-restore.${process.pid}.7.8.tmp`, `other/.crystal-restore.${pid}.1.2.tmp`, `other/.crystal-restore.${pid}.5.6.tmp`, `sub/.crystal-restore.${pid}.3.4.tmp`, `sub/.crystal-restore.${pid}.x.0.tmp`].sort()
    )
    expect(treeState(outside)).toEqual(outsideBefore)
    expect(fs.readdirSync(liveDir).filter((name) => name.startsWith(`${pid}.`))).toEqual([])
  }, 30_000)

  it("kill -9 mid-restore: the dead restore named its folders in its live file, and the next open leaves no restore temp in the workspace", async () => {
    const { workspace, home } = await fixture()
    for (let i = 0; i < 4; i++) fs.mkdirSync(path.join(workspace, `d${i}`))
    const child = path.join(import.meta.dirname, "restore-child.ts")
    const liveDir = path.join(storeDirFor(workspace, home), "live")
    const left: Array<number> = []
    let named = 0
    for (const ms of [100, 200, 300, 400, 500]) {
      const pid = await killAfterFirstLine([child, workspace, home], ms)
      left.push(restoreTemps(workspace).length)
      const lives = fs.readdirSync(liveDir).filter((name) => name.startsWith(`${pid}.`))
      expect(lives).toHaveLength(1)
      const recorded = JSON.parse(fs.readFileSync(path.join(liveDir, lives[0] as string), "utf8")) as { restoringIn?: Array<string> }
      // Killed while writing (restores run back to back, but each plans before it writes): the folders are named.
      if (recorded.restoringIn !== undefined) {
        expect(recorded.restoringIn.sort()).toEqual(["d0", "d1", "d2", "d3"])
        named++
      }
      await openStore(workspace, home)
      expect(restoreTemps(workspace)).toEqual([])
    }
    expect(named).toBeGreaterThan(0)
    // Not asserted (timing): how many kills landed between a write and its rename.
    console.log(`restore temps left by the kills: ${left.join(", ")}; kills with the folders named: ${named} of 5`)
  }, 60_000)
})
