import * as fs from "node:fs/promises"
import * as path from "node:path"

export interface AtomicWriteOptions {
  /** File mode for the written file; directories created on the way get the matching dir mode. */
  readonly mode?: number
}

const dirModeFor = (mode: number | undefined): number => (mode !== undefined && (mode & 0o077) === 0 ? 0o700 : 0o755)

let counter = 0

/** A file written and synced under a temporary name, waiting to be given its real one. */
export interface StagedFile {
  /** Renames it over `target` (in the same directory). */
  readonly commit: (target: string) => Promise<void>
  readonly discard: () => Promise<void>
}

/**
 * Writes `data` to a hidden temp file in `dir` and fsyncs it; the name comes later, so a caller
 * can work out the name (a content hash, say) while the bytes are already on their way to disk.
 */
export const stageFile = async <A = void>(
  dir: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions & {
    readonly label?: string
    /** Work to do on this thread while the write is in flight (hashing the bytes, say). */
    readonly whileWriting?: () => A
  } = {}
): Promise<StagedFile & { readonly result: A }> => {
  await fs.mkdir(dir, { recursive: true, mode: dirModeFor(options.mode) })
  const temp = path.join(dir, `.${options.label ?? "staged"}.${process.pid}.${Date.now()}.${counter++}.tmp`)
  const handle = await fs.open(temp, "wx", options.mode ?? 0o644)
  let result: A
  try {
    const written = handle.writeFile(data)
    try {
      result = options.whileWriting === undefined ? (undefined as A) : options.whileWriting()
    } finally {
      await written
    }
    await handle.sync()
  } catch (error) {
    await handle.close().catch(() => {})
    await fs.rm(temp, { force: true })
    throw error
  }
  await handle.close()
  const discard = () => fs.rm(temp, { force: true })
  return {
    result,
    commit: async (target) => {
      try {
        await fs.rename(temp, target)
      } catch (error) {
        await discard()
        throw error
      }
    },
    discard
  }
}

/**
 * Writes `data` to `file` so that a reader (or a crash at any instant) sees the old content or the
 * new, never a torn file: write a temp file in the same directory, fsync it, rename over the target.
 */
export const writeFileAtomic = async (file: string, data: string | Uint8Array, options: AtomicWriteOptions = {}): Promise<void> =>
  (await stageFile(path.dirname(file), data, { ...options, label: path.basename(file) })).commit(file)
