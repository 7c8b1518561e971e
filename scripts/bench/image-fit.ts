/// <reference types="bun" />
/**
 * Time to fit a 4000×3000 PNG and JPEG to Anthropic's limits (1568 px per side, 3.75 MiB) with
 * src/media/image-fit.ts (decode, area-average shrink, re-encode), next to what an image within the
 * limits costs in the same run (signature and header check plus the sha256 the store computes).
 * Usage: bun scripts/bench/image-fit.ts [--runs N]
 */
import { createHash } from "node:crypto"
import * as Effect from "effect/Effect"
import * as jpeg from "jpeg-js"
import { fitImage } from "../../src/media/image-fit.ts"
import { checkImage } from "../../src/media/media-store.ts"
import { makePng } from "../../test/support/images.ts"
import { flag, median, mib, ms, ratio } from "./measure.ts"

const runs = flag("--runs", 7)
const target = { model: "anthropic/bench", limits: { maxBytes: (5 * 1024 * 1024 * 3) / 4, maxPixelsPerSide: 1568 } }

const width = 4000
const height = 3000
const png = makePng(width, height)
const rgba = new Uint8Array(width * height * 4)
for (let y = 0; y < height; y++)
  for (let x = 0; x < width; x++) {
    const at = (y * width + x) * 4
    rgba[at] = (x * 255) / width
    rgba[at + 1] = (y * 255) / height
    rgba[at + 2] = (x ^ y) & 0xff
    rgba[at + 3] = 255
  }
const jpg = new Uint8Array(jpeg.encode({ data: rgba, width, height }, 90).data)

/** Wall time and this process's CPU time (the machine is shared: CPU time is the steadier figure). */
const time = async (work: () => Promise<unknown>): Promise<{ readonly wall: number; readonly cpu: number }> => {
  const cpu = process.cpuUsage()
  const started = performance.now()
  await work()
  const used = process.cpuUsage(cpu)
  return { wall: performance.now() - started, cpu: (used.user + used.system) / 1000 }
}

const withinLimits = async (bytes: Uint8Array) => {
  await Effect.runPromise(checkImage(bytes, "bench"))
  createHash("sha256").update(bytes).digest("hex")
}

for (const [name, bytes] of [["PNG", png], ["JPEG", jpg]] as const) {
  const fit = () => Effect.runPromise(fitImage(bytes, `bench.${name.toLowerCase()}`, target))
  const out = await fit() // warm-up, and the result to report
  const fitTimes: Array<{ readonly wall: number; readonly cpu: number }> = []
  const baseTimes: Array<{ readonly wall: number; readonly cpu: number }> = []
  for (let i = 0; i < runs; i++) {
    baseTimes.push(await time(() => withinLimits(bytes)))
    fitTimes.push(await time(fit))
  }
  const shrunk = out.size === undefined ? "?" : `${out.size.width}×${out.size.height}`
  const wall = (times: typeof fitTimes) => median(times.map((t) => t.wall))
  const cpu = (times: typeof fitTimes) => median(times.map((t) => t.cpu))
  console.log(
    `${name} ${width}×${height} (${mib(bytes.length)}) → ${shrunk} ${out.mime} (${mib(out.bytes.length)}), median of ${runs}: ` +
      `fit ${ms(wall(fitTimes))} wall, ${ms(cpu(fitTimes))} CPU; ` +
      `within-limits check ${ms(wall(baseTimes))} wall (fit is ${ratio(wall(fitTimes), wall(baseTimes))})`
  )
}
