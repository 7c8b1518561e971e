/// <reference types="bun" />
/**
 * Images (issue 12), three figures:
 * 1. attach time of a 5 MiB PNG (read the file, check it, hash it, write it owner-only with fsync
 *    and rename), median over distinct images (the same one twice would hit the dedupe), wall and
 *    CPU time (CPU is what load on a shared machine distorts least), against a bare `readFile` +
 *    `writeFile` of the same bytes in the same loop (target ≤ 50 ms);
 * 2. bytes written to the media folder per image vs the image's size (target 1.0×);
 * 3. peak RSS of `dist/crystal run --image` sending a 20 MiB image to a fake server, above the same
 *    run without the image (target ≤ 3× the image size).
 * Usage: bun scripts/bench/images.ts [--runs N]
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { makeMediaStore } from "../../src/media/media-store.ts"
import { readImageFile } from "../../src/engine/attach-image.ts"
import { makePng } from "../../test/support/images.ts"
import { crystalBinary, flag, median, mib, ms, ratio, root } from "./measure.ts"

const runs = flag("--runs", 15)
const base = fs.mkdtempSync(path.join(os.tmpdir(), "crystal-bench-images-"))

// 1 + 2: attach
const side = 1145 // 1145² × 4 bytes of noise ≈ 5 MiB of PNG
const files = Array.from({ length: runs }, (_, i) => {
  const file = path.join(base, `shot-${i}.png`)
  fs.writeFileSync(file, makePng(side, side, { noise: true, seed: i + 1 }))
  return file
})
const mediaDir = path.join(base, "media")
const store = makeMediaStore(mediaDir)
const attachTimes: Array<number> = []
const attachCpu: Array<number> = []
const bareTimes: Array<number> = []
for (const [i, file] of files.entries()) {
  // The bench's own garbage (the generated PNGs) is collected first, not inside the measured attach.
  Bun.gc(true)
  const started = performance.now()
  const cpu = process.cpuUsage()
  await Effect.runPromise(Effect.flatMap(readImageFile(file), (bytes) => store.put(bytes, file)))
  attachTimes.push(performance.now() - started)
  const used = process.cpuUsage(cpu)
  attachCpu.push((used.user + used.system) / 1000)
  const bareStarted = performance.now()
  fs.writeFileSync(path.join(base, `copy-${i}`), fs.readFileSync(file))
  bareTimes.push(performance.now() - bareStarted)
}
const imageBytes = files.reduce((sum, file) => sum + fs.statSync(file).size, 0)
const stored = fs.readdirSync(mediaDir).reduce((sum, name) => sum + fs.statSync(path.join(mediaDir, name)).size, 0)
console.log(`attach of a ${mib(fs.statSync(files[0] ?? "").size)} PNG, ${runs} distinct images (medians):`)
console.log(`  attach ${ms(median(attachTimes))} wall, ${ms(median(attachCpu))} CPU; bare read+write ${ms(median(bareTimes))} (${ratio(median(attachTimes), median(bareTimes))}); load ${os.loadavg()[0]?.toFixed(1)}`)
console.log(`  bytes in the media folder / image bytes: ${(stored / imageBytes).toFixed(3)}× (${fs.readdirSync(mediaDir).length} files)`)

// 3: peak RSS while sending a 20 MiB image
const replyFile = path.join(base, "reply.json")
fs.writeFileSync(replyFile, JSON.stringify({ text: "seen" }))
const server = Bun.spawn([process.execPath, path.join(root, "scripts/bench/fake-server-process.ts"), replyFile], { stdout: "pipe", stderr: "inherit" })
const url = new TextDecoder().decode((await server.stdout.getReader().read()).value).trim()
const home = path.join(base, "home")
const workspace = path.join(base, "ws")
fs.mkdirSync(home)
fs.mkdirSync(workspace)
fs.writeFileSync(
  path.join(home, "config.json"),
  JSON.stringify({
    model: "bench/vision",
    providers: { bench: { protocol: "openai-chat", baseURL: `${url}/v1`, models: { vision: { imageInput: true, maxImageBytes: 20 * 1024 * 1024, maxImagePixels: 10000 } } } }
  })
)
const bigSide = 2288 // just under 20 MiB of noise
const big = makePng(bigSide, bigSide, { noise: true, seed: 99 })
const bigFile = path.join(workspace, "big.png")
fs.writeFileSync(bigFile, big)
const env = { PATH: process.env["PATH"] ?? "/usr/bin:/bin", HOME: base, CRYSTAL_HOME: home, NO_COLOR: "1" }
// Bun's resourceUsage() reports the RUSAGE_CHILDREN maximum of this whole process (every child so
// far), so each run goes through a fresh python3 whose only child is crystal.
const rusage = "import resource, subprocess, sys\nsubprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)\nprint(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)"
const peak = (args: ReadonlyArray<string>): number => {
  const child = Bun.spawnSync(["python3", "-c", rusage, crystalBinary, "run", ...args], { cwd: workspace, env, stdout: "pipe", stderr: "pipe" })
  if (child.exitCode !== 0) throw new Error(`crystal run failed: ${child.stderr.toString()}`)
  return Number(child.stdout.toString().trim()) * 1024
}
const idle: Array<number> = []
const withImage: Array<number> = []
try {
  for (let i = 0; i < 5; i++) {
    idle.push(peak(["look"]))
    withImage.push(peak(["--image", "big.png", "look"]))
  }
} finally {
  server.kill()
}
const above = median(withImage) - median(idle)
console.log(`peak RSS sending a ${mib(big.length)} image through openai-chat (5 runs, medians):`)
console.log(`  without the image ${mib(median(idle))}, with it ${mib(median(withImage))}: ${mib(above)} above idle = ${(above / big.length).toFixed(2)}× the image (target ≤ 3×)`)
fs.rmSync(base, { recursive: true, force: true })
