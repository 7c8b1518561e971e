import * as fs from "node:fs"

/**
 * All of stdin as text (for `crystal run` without a prompt argument, or a piped `crystal`).
 * Reading /dev/stdin directly avoids building process.stdin, which is slow to set up in Bun.
 */
export const readStdin = async (): Promise<string> => {
  try {
    return await fs.promises.readFile("/dev/stdin", "utf8")
  } catch {
    const chunks: Array<Buffer> = []
    for await (const chunk of process.stdin) chunks.push(Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk)))
    return Buffer.concat(chunks).toString("utf8")
  }
}

let devNull: number | undefined

/**
 * Whether fd 0, 1 or 2 is a terminal. On POSIX a terminal is a character device other than
 * /dev/null, which fstat answers at once; node:tty costs ~10 ms to load in the compiled binary,
 * so it is only the fallback (Windows).
 */
export const isTerminal = async (fd: 0 | 1 | 2): Promise<boolean> => {
  if (process.platform !== "win32") {
    try {
      const stat = fs.fstatSync(fd)
      if (!stat.isCharacterDevice()) return false
      devNull ??= fs.statSync("/dev/null").rdev
      return stat.rdev !== devNull
    } catch {
      return false
    }
  }
  const tty = await import("node:tty")
  return tty.isatty(fd)
}
