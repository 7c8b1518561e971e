/**
 * Run with Bun (test/unit/media/media-store.test.ts spawns it and kills it at a random moment):
 * stores distinct 1 MiB images in the media directory given as argv[2], forever; prints "going"
 * once three are kept.
 */
import * as Effect from "effect/Effect"
import { makeMediaStore } from "../../src/media/media-store.ts"

const store = makeMediaStore(process.argv[2] ?? "")
// Each run starts its numbering at argv[3], so runs write different images.
for (let i = Number(process.argv[3] ?? 0); ; i++) {
  const bytes = Buffer.alloc(1024 * 1024, i & 0xff)
  Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]).copy(bytes)
  bytes.writeUInt32BE(i, 8)
  await Effect.runPromise(store.put(bytes, "x"))
  if (i === Number(process.argv[3] ?? 0) + 2) process.stdout.write("going\n")
}
