/// <reference types="bun" />
/**
 * Pasting a 5 MiB PNG in the terminal, on the compiled binary in tmux, with a fake `xclip`
 * (a shell script that `cat`s the file) first on PATH:
 *   - Ctrl+V to `[Image #N]` on the screen, next to a baseline measured the same way in the same
 *     run: a typed character to its echo (tmux's send-keys and capture-pane cost both alike);
 *   - bytes written per pasted image: the media file's size, and the binary's own write() total
 *     (wchar of its threads: media file, session save, redraws) across the paste, both against
 *     the image's size (target 1.0×, no copies);
 *   - in-process pieces under Bun: readClipboardImage (two reader runs: the listing, then 5 MiB
 *     through a pipe) next to a bare `/bin/cat` of the same file, and MediaStore.put.
 * Each paste is a different image (no dedupe), its marker removed with one Backspace after.
 * Usage: npm run build && bun scripts/bench/paste.ts [--runs N] [--mib N]
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { spawn } from "node:child_process"
import * as Effect from "effect/Effect"
import { readClipboardImage } from "../../src/media/clipboard.ts"
import { makeMediaStore } from "../../src/media/media-store.ts"
import { writeFakeReader } from "../../test/support/fake-clipboard.ts"
import { makePng } from "../../test/support/images.ts"
import { crystalBinary, flag, median, mib, ms, ratio, requireCrystalBinary } from "./measure.ts"

const runs = flag("--runs", 9)
const sizeMib = flag("--mib", 5)

requireCrystalBinary()
const root = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-paste-"))
const home = path.join(root, "home")
const workspace = path.join(root, "workspace")
const bin = path.join(root, "bin")
for (const dir of [home, workspace, bin]) fs.mkdirSync(dir)
fs.writeFileSync(
  path.join(home, "config.json"),
  JSON.stringify({
    model: "local/bench",
    // No request is made: the port only has to parse.
    providers: { local: { protocol: "openai-chat", baseURL: "http://127.0.0.1:9/v1", models: { bench: { imageInput: true } } } }
  })
)

// width × height × 4 bytes of incompressible pixels: the PNG is `sizeMib` MiB and a few hundred bytes.
const side = Math.round(Math.sqrt((sizeMib * 1024 * 1024) / 4))
const image = (seed: number) => makePng(side, side, { noise: true, seed })

const tmux = (...args: Array<string>): string => {
  const result = Bun.spawnSync(["tmux", ...args])
  if (result.exitCode !== 0) throw new Error(`tmux ${args.join(" ")}: ${result.stderr.toString()}`)
  return result.stdout.toString()
}
const session = `crystal-bench-paste-${process.pid}`
const quote = (value: string) => `'${value.replaceAll("'", "'\\''")}'`
const env = { HOME: root, CRYSTAL_HOME: home, PATH: bin, TERM: "xterm", NO_COLOR: "1", DISPLAY: ":0" }
const exports = Object.entries(env)
  .map(([key, value]) => `${key}=${quote(value)}`)
  .join(" ")
tmux("new-session", "-d", "-s", session, "-x", "120", "-y", "40", "bash", "-c", `cd ${quote(workspace)} && env -i ${exports} ${quote(crystalBinary)}; sleep 5`)

const screen = () => tmux("capture-pane", "-t", session, "-p")
const waitFor = (test: (text: string) => boolean, timeoutMs = 20_000): number => {
  const deadline = performance.now() + timeoutMs
  for (;;) {
    if (test(screen())) return performance.now()
    if (performance.now() > deadline) throw new Error(`timed out; the screen:\n${screen()}`)
  }
}
const promptLine = (text: string) => text.split("\n").filter((line) => line.startsWith("› ")).at(-1) ?? ""

const crystalPid = (): number => {
  const shell = tmux("display-message", "-p", "-t", session, "#{pane_pid}").trim()
  return Number(Bun.spawnSync(["ps", "-o", "pid=", "--ppid", shell]).stdout.toString().trim().split(/\s+/)[0])
}
/**
 * The binary's own write() bytes: the sum over its threads. Not /proc/PID/io, which also adds the
 * I/O of reaped children (the reader's 5 MiB into its pipe) to the parent's figure.
 */
const written = (pid: number): number =>
  fs
    .readdirSync(`/proc/${pid}/task`)
    .reduce((sum, tid) => sum + Number(/^wchar: (\d+)$/m.exec(fs.readFileSync(`/proc/${pid}/task/${tid}/io`, "utf8"))?.[1] ?? NaN), 0)
const mediaBytes = (): number => {
  const dir = path.join(home, "media")
  return fs.existsSync(dir) ? fs.readdirSync(dir).reduce((sum, name) => sum + fs.statSync(path.join(dir, name)).size, 0) : 0
}

try {
  waitFor((text) => text.includes("local/bench"))
  const pid = crystalPid()
  const echo: Array<number> = []
  const paste: Array<number> = []
  const writeRatios: Array<number> = []
  let imageBytes = 0
  for (let run = 0; run < runs + 1; run++) {
    // Baseline: one typed character to its echo, then erased.
    let started = performance.now()
    tmux("send-keys", "-t", session, "-l", "x")
    const echoed = waitFor((text) => promptLine(text).startsWith("› x")) - started
    tmux("send-keys", "-t", session, "BSpace")
    waitFor((text) => !promptLine(text).startsWith("› x"))

    const png = image(run + 1)
    await writeFakeReader(bin, "xclip", { types: ["TARGETS", "image/png"], data: png })
    const before = written(pid)
    started = performance.now()
    tmux("send-keys", "-t", session, "C-v")
    const marker = `[Image #${run + 1}]`
    const shown = waitFor((text) => promptLine(text).includes(marker)) - started
    const wrote = written(pid) - before
    tmux("send-keys", "-t", session, "BSpace")
    waitFor((text) => !promptLine(text).includes("[Image #"))
    // The first run warms the binary's lazy imports (clipboard, media store) and is not counted.
    if (run === 0) continue
    imageBytes += png.length
    echo.push(echoed)
    paste.push(shown)
    writeRatios.push(wrote / png.length)
  }
  const stored = mediaBytes() - image(1).length

  // In-process pieces, same image size.
  const piecesDir = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-paste-store-"))
  const store = makeMediaStore(path.join(piecesDir, "media"))
  const host = { platform: process.platform, env: { PATH: `${bin}:/usr/bin:/bin`, DISPLAY: ":0" }, procVersion: undefined }
  const reads: Array<number> = []
  const puts: Array<number> = []
  const floors: Array<number> = []
  /** The floor of any reader: one process piping the same bytes, nothing else. */
  const catFile = (file: string) =>
    new Promise<void>((resolve) => {
      const child = spawn("/bin/cat", [file], { stdio: ["ignore", "pipe", "ignore"] })
      child.stdout.on("data", () => {})
      child.on("close", () => resolve())
    })
  for (let run = 0; run < runs; run++) {
    await writeFakeReader(bin, "xclip", { types: ["image/png"], data: image(100 + run) })
    let started = performance.now()
    await catFile(path.join(bin, "xclip.data"))
    floors.push(performance.now() - started)
    started = performance.now()
    const read = await Effect.runPromise(readClipboardImage({ host }))
    reads.push(performance.now() - started)
    started = performance.now()
    await Effect.runPromise(store.put(read.bytes, "the clipboard"))
    puts.push(performance.now() - started)
  }
  fs.rmSync(piecesDir, { recursive: true, force: true })

  const size = image(1).length
  console.log(`paste of a ${mib(size)} PNG (${size} bytes), ${runs} runs, medians`)
  console.log(`  typed character → echo (baseline):   ${ms(median(echo))}`)
  console.log(`  Ctrl+V → [Image #N] on the screen:   ${ms(median(paste))}  (${ratio(median(paste), median(echo))} the baseline; ${ms(median(paste) - median(echo))} above it)`)
  console.log(`  in process: /bin/cat of the image    ${ms(median(floors))}  (the floor: one spawn, one pipe)`)
  console.log(`  in process: readClipboardImage       ${ms(median(reads))}  (${ratio(median(reads), median(floors))} the floor: list + read, two sh+cat fakes)`)
  console.log(`  in process: MediaStore.put           ${ms(median(puts))}`)
  console.log(`  media files written / images pasted: ${(stored / imageBytes).toFixed(3)}× (${stored} / ${imageBytes} bytes)`)
  console.log(`  crystal's write() bytes per paste:   ${median(writeRatios).toFixed(3)}× the image (media file, saves, redraws)`)
} finally {
  Bun.spawnSync(["tmux", "kill-session", "-t", session])
  fs.rmSync(root, { recursive: true, force: true })
}
