import * as fs from "node:fs/promises"
import * as path from "node:path"

export interface AtomicWriteOptions {
  /** File mode for the written file; directories created on the way get the matching dir mode. */
  readonly mode?: number
}

const dirModeFor = (mode: number | undefined): number => (mode !== undefined && (mode & 0o077) === 0 ? 0o700 : 0o755)

let counter = 0

/**
 * Writes `data` to `file` so that a reader (or a crash at any instant) sees the old content or the
 * new, never a torn file: write a temp file in the same directory, fsync it, rename over the target.
 */
export const writeFileAtomic = async (
  file: string,
  data: string | Uint8Array,
  options: AtomicWriteOptions = {}
): Promise<void> => {
  const dir = path.dirname(file)
  await fs.mkdir(dir, { recursive: true, mode: dirModeFor(options.mode) })
  const temp = path.join(dir, `.${path.basename(file)}.${process.pid}.${Date.now()}.${counter++}.tmp`)
  const handle = await fs.open(temp, "wx", options.mode ?? 0o644)
  try {
    await handle.writeFile(data)
    await handle.sync()
  } catch (error) {
    await handle.close().catch(() => {})
    await fs.rm(temp, { force: true })
    throw error
  }
  await handle.close()
  try {
    await fs.rename(temp, file)
  } catch (error) {
    await fs.rm(temp, { force: true })
    throw error
  }
}
