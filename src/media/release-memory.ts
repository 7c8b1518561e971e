/**
 * A streamed image leaves each chunk's base64 behind as garbage, and the collector may not run
 * while the body streams: a 20 MiB image then peaks at ~3.4× its size above idle instead of ~2.9×.
 * A full collection every few MiB sent (Bun only; a few ms) keeps the garbage small.
 * Measured by scripts/bench/images.ts.
 */
type WithGc = { readonly Bun?: { readonly gc: (force: boolean) => void } }

export const releaseImageMemory = (): void => {
  const bun = (globalThis as WithGc).Bun
  bun?.gc(true)
}
