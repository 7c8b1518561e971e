/**
 * A streamed image leaves each chunk's base64 behind as garbage, and the collector may not run
 * while the body streams: a 20 MiB image then peaks at ~3.4× its size above idle instead of ~2.9×.
 * A full collection every few MiB sent (Bun only; a few ms) keeps the garbage small.
 * Measured by scripts/bench/images.ts.
 */
const threshold = 4 * 1024 * 1024

type WithGc = { readonly Bun?: { readonly gc: (force: boolean) => void } }

export const releaseImageMemory = (bytesHandled: number): void => {
  if (bytesHandled >= threshold) (globalThis as WithGc).Bun?.gc(true)
}
