/**
 * Large images pass through memory several times on their way to a provider (file bytes, base64,
 * the SDK's JSON body, its encoding for the socket), and the garbage collector may not run between
 * those steps: the peak grows with every copy still waiting to be collected. After handling more
 * than a few MiB, a full collection (Bun only; a few ms) frees the earlier copies before the next
 * one is made. Measured by scripts/bench/images.ts.
 */
const threshold = 4 * 1024 * 1024

type WithGc = { readonly Bun?: { readonly gc: (force: boolean) => void } }

export const releaseImageMemory = (bytesHandled: number): void => {
  if (bytesHandled >= threshold) (globalThis as WithGc).Bun?.gc(true)
}
