/**
 * A bracketed paste that is exactly one path to an image file: what terminals send when a file is
 * dragged onto them. They spell it variously: quoted with ' or " (GNOME Terminal adds a trailing
 * space), spaces escaped with \ (iTerm2, kitty), or a file:// URL. Only absolute paths (and ~/…)
 * count, so a pasted file name meant as text stays text.
 */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { fileURLToPath } from "node:url"
import { openRegularFile } from "../files/confined-read.ts"
import { sniffImage } from "../media/image-type.ts"

const imageExtensions = /\.(png|jpe?g|gif|webp|bmp|tiff?|heic|heif|avif)$/i

/** The path `text` spells, when it is one path and nothing else; the file is not looked at. */
export const parseDroppedPath = (text: string, home: string = os.homedir()): string | undefined => {
  const trimmed = text.trim()
  if (trimmed === "" || trimmed.length > 4096 || /[\n\r\0]/.test(trimmed)) return undefined
  let candidate: string
  if (trimmed.startsWith("file://")) {
    try {
      candidate = fileURLToPath(trimmed)
    } catch {
      return undefined
    }
  } else if (/^'[^']*'$/.test(trimmed) || /^"[^"]*"$/.test(trimmed)) {
    candidate = trimmed.slice(1, -1)
  } else {
    // Unquoted: a space must be escaped, or this is a sentence rather than a path.
    if (/(^|[^\\])\s/.test(trimmed)) return undefined
    // Windows paths are made of backslashes; elsewhere a backslash escapes the next character.
    candidate = process.platform === "win32" ? trimmed : trimmed.replace(/\\(.)/g, "$1")
  }
  if (candidate === "~" || candidate.startsWith("~/")) candidate = path.join(home, candidate.slice(1))
  return path.isAbsolute(candidate) ? candidate : undefined
}

/** Whether `file` is a regular file that is an image, by its first bytes or, failing those, its name. */
export const isImageFile = (file: string): boolean => {
  // A FIFO or device is never opened: a blocking open of a pasted FIFO path froze the terminal.
  const opened = openRegularFile(file)
  if (opened === undefined || "refused" in opened) return false
  try {
    const head = Buffer.alloc(16)
    const read = fs.readSync(opened.fd, head, 0, head.length, 0)
    // A .bmp or .heic still attaches, so its refusal says what it is instead of pasting its path.
    return sniffImage(head.subarray(0, read)) !== undefined || imageExtensions.test(file)
  } catch {
    return false
  } finally {
    fs.closeSync(opened.fd)
  }
}

/** The image file a paste names, or undefined when it is text to insert. */
export const droppedImage = (text: string, home?: string): string | undefined => {
  const candidate = parseDroppedPath(text, home)
  return candidate !== undefined && isImageFile(candidate) ? candidate : undefined
}
