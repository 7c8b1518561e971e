/**
 * Which OS command reads the clipboard's image, and how its output is read (SPEC I5). Pure: the
 * host (platform, environment, /proc/version) goes in, the readers to try come out, in order.
 *
 * - Linux: `wl-paste` when WAYLAND_DISPLAY is set, `xclip` when DISPLAY is (both: Wayland first).
 *   XDG_SESSION_TYPE decides nothing: it is often wrong (an X terminal inside a Wayland session).
 *   Both list the offered types first; png, jpeg, gif, webp are taken in that order.
 * - macOS: the system `osascript`, PNG, then JPEG, then GIF; AppleScript prints the bytes as hex.
 * - Windows, and WSL (whose PATH often lacks it): Windows PowerShell by its full path, which
 *   prints the clipboard's PNG bytes (or the bitmap converted to PNG) as base64.
 */
import { noDisplay } from "./clipboard-errors.ts"
import type { ClipboardError } from "./clipboard-errors.ts"

export interface ClipboardHost {
  readonly platform: NodeJS.Platform
  readonly env: Readonly<Record<string, string | undefined>>
  /** The text of /proc/version on Linux (how WSL is recognised), when readable. */
  readonly procVersion: string | undefined
}

/** What a listing of the clipboard's types says to read. */
export type Offer =
  /** Read this type (an image type of the reader's naming). */
  | { readonly _tag: "Read"; readonly type: string }
  /** An image in a type we do not take, and none we do (`seen`: "a TIFF image"). */
  | { readonly _tag: "Unsupported"; readonly seen: string }
  /** No image at all; `holds` names what there is ("text"), undefined for nothing. */
  | { readonly _tag: "NoImage"; readonly holds: string | undefined }

export type Encoding = "raw" | "base64" | "applescript-hex"

export interface ClipboardReader {
  /** The command's name in messages ("xclip"). */
  readonly label: string
  /** What to run: a name looked up on PATH, or an absolute path. */
  readonly command: string
  /** The package (or product) that provides it, for "install …". */
  readonly install: string
  /** Arguments that list the offered types, and how to read that listing. */
  readonly list?: { readonly args: ReadonlyArray<string>; readonly parse: (stdout: string) => Offer }
  /** Arguments that print the image of `type` (the listing's choice; undefined without a listing). */
  readonly read: (type: string | undefined) => ReadonlyArray<string>
  readonly encoding: Encoding
  /** Stderr of a failed run that means "nothing is copied" rather than a failure. */
  readonly emptyStderr?: RegExp
  /** Exit codes of the read that answer "no image" (Windows' script), with what the clipboard holds. */
  readonly noImageExits?: Readonly<Record<number, string | undefined>>
  /** The exit code of a read that found an image over the limit without printing it. */
  readonly tooLargeExit?: number
}

export const isWsl = (host: ClipboardHost): boolean =>
  host.platform === "linux" && ((host.env["WSL_DISTRO_NAME"] ?? "") !== "" || /microsoft/i.test(host.procVersion ?? ""))

const set = (value: string | undefined): boolean => value !== undefined && value !== ""

/** MIME types in the order they are taken; `image/jpg` is what some X programs offer for JPEG. */
const linuxPreferred = ["image/png", "image/jpeg", "image/jpg", "image/gif", "image/webp"]
const textTypes = /^(text\/|UTF8_STRING$|STRING$|TEXT$|COMPOUND_TEXT$)/

/** A listing of MIME types (and X atoms), one per line, as wl-paste and xclip print it. */
export const parseMimeList = (stdout: string): Offer => {
  const types = stdout
    .split(/\r?\n/)
    .map((line) => line.trim())
    .filter((line) => line !== "")
  const preferred = linuxPreferred.find((type) => types.includes(type))
  if (preferred !== undefined) return { _tag: "Read", type: preferred }
  // Read anyway: the bytes then say what they are (a BMP, a TIFF) in the refusal.
  const otherImage = types.find((type) => type.startsWith("image/"))
  if (otherImage !== undefined) return { _tag: "Read", type: otherImage }
  if (types.some((type) => textTypes.test(type))) return { _tag: "NoImage", holds: "text" }
  const files = types.includes("text/uri-list") || types.includes("x-special/gnome-copied-files")
  return { _tag: "NoImage", holds: files ? "copied files" : undefined }
}

export const wlPaste: ClipboardReader = {
  label: "wl-paste",
  command: "wl-paste",
  install: "wl-clipboard",
  list: { args: ["--list-types"], parse: parseMimeList },
  read: (type) => ["--no-newline", "--type", type ?? "image/png"],
  encoding: "raw",
  // wl-clipboard 2.x says "Nothing is copied", older ones "No selection".
  emptyStderr: /nothing is copied|no selection/i
}

export const xclip: ClipboardReader = {
  label: "xclip",
  command: "xclip",
  install: "xclip",
  list: { args: ["-selection", "clipboard", "-t", "TARGETS", "-o"], parse: parseMimeList },
  read: (type) => ["-selection", "clipboard", "-t", type ?? "image/png", "-o"],
  encoding: "raw",
  // With no owner of the CLIPBOARD selection, xclip says the target is not available.
  emptyStderr: /target .* not available|no selection/i
}

/** AppleScript's `clipboard info` names classes in two spellings: «class PNGf», JPEG picture. */
const macTypes: ReadonlyArray<readonly [string, RegExp]> = [
  ["«class PNGf»", /«class PNGf»/],
  ["JPEG picture", /JPEG picture|«class JPEG»/],
  ["GIF picture", /GIF picture|«class GIFf»/]
]

export const parseMacClipboardInfo = (stdout: string): Offer => {
  const chosen = macTypes.find(([, pattern]) => pattern.test(stdout))
  if (chosen !== undefined) return { _tag: "Read", type: chosen[0] }
  if (/TIFF picture|«class TIFF»/.test(stdout)) return { _tag: "Unsupported", seen: "a TIFF image" }
  if (/«class BMP /.test(stdout)) return { _tag: "Unsupported", seen: "a BMP image" }
  if (/«class 8BPS»/.test(stdout)) return { _tag: "Unsupported", seen: "a Photoshop image" }
  if (/\bpicture\b/i.test(stdout)) return { _tag: "Unsupported", seen: "a picture in another format" }
  if (/string|Unicode text|«class utf8»|«class ut16»|«class RTF »/.test(stdout)) return { _tag: "NoImage", holds: "text" }
  if (/«class furl»|file URL/.test(stdout)) return { _tag: "NoImage", holds: "copied files" }
  return { _tag: "NoImage", holds: undefined }
}

export const osascript: ClipboardReader = {
  label: "osascript",
  command: "/usr/bin/osascript",
  install: "macOS's osascript (part of the system)",
  list: { args: ["-e", "clipboard info"], parse: parseMacClipboardInfo },
  read: (type) => ["-e", `the clipboard as ${type ?? "«class PNGf»"}`],
  encoding: "applescript-hex"
}

/**
 * The clipboard's "PNG" data as it was put there (screenshots, browsers), else its bitmap
 * encoded as PNG; base64 on stdout. Exit 2: text and no image; 3: no image; 4: over `limit`.
 */
export const powershellScript = (limit: number): string =>
  [
    "$ErrorActionPreference = 'Stop'",
    "Add-Type -AssemblyName System.Windows.Forms",
    "Add-Type -AssemblyName System.Drawing",
    "$data = [System.Windows.Forms.Clipboard]::GetDataObject()",
    "$bytes = $null",
    "if ($data -ne $null -and $data.GetDataPresent('PNG')) {",
    "  $png = $data.GetData('PNG')",
    "  if ($png -is [System.IO.MemoryStream]) { $bytes = $png.ToArray() }",
    "}",
    "if ($bytes -eq $null -and [System.Windows.Forms.Clipboard]::ContainsImage()) {",
    "  $image = [System.Windows.Forms.Clipboard]::GetImage()",
    "  $out = New-Object System.IO.MemoryStream",
    "  $image.Save($out, [System.Drawing.Imaging.ImageFormat]::Png)",
    "  $bytes = $out.ToArray()",
    "}",
    "if ($bytes -eq $null) { if ([System.Windows.Forms.Clipboard]::ContainsText()) { exit 2 } else { exit 3 } }",
    `if ($bytes.Length -gt ${limit}) { exit 4 }`,
    "[Console]::Out.Write([Convert]::ToBase64String($bytes))"
  ].join("\n")

/** -EncodedCommand takes UTF-16LE base64: no quoting survives the trip through WSL's interop otherwise. */
export const encodePowershell = (script: string): string => Buffer.from(script, "utf16le").toString("base64")

export const windowsPowershell = (command: string, limit: number): ClipboardReader => ({
  label: "Windows PowerShell",
  command,
  install: `Windows PowerShell (looked for ${command})`,
  read: () => ["-NoProfile", "-NonInteractive", "-STA", "-EncodedCommand", encodePowershell(powershellScript(limit))],
  encoding: "base64",
  noImageExits: { 2: "text", 3: undefined },
  tooLargeExit: 4
})

/** `%SystemRoot%\System32\WindowsPowerShell\v1.0\powershell.exe`. */
export const windowsPowershellPath = (env: ClipboardHost["env"]): string =>
  `${(env["SystemRoot"] ?? env["SYSTEMROOT"] ?? "C:\\Windows").replace(/\\+$/, "")}\\System32\\WindowsPowerShell\\v1.0\\powershell.exe`

export const wslPowershellPath = "/mnt/c/Windows/System32/WindowsPowerShell/v1.0/powershell.exe"

/** The readers to try, in order; an error when there is nothing that could read a clipboard. */
export const clipboardReaders = (host: ClipboardHost, limit: number): ReadonlyArray<ClipboardReader> | ClipboardError => {
  if (host.platform === "darwin") return [osascript]
  if (host.platform === "win32") return [windowsPowershell(windowsPowershellPath(host.env), limit)]
  const desktop = [...(set(host.env["WAYLAND_DISPLAY"]) ? [wlPaste] : []), ...(set(host.env["DISPLAY"]) ? [xclip] : [])]
  // WSL: Windows holds the clipboard; WSLg's Wayland/X bridge is a fallback.
  if (isWsl(host)) return [windowsPowershell(wslPowershellPath, limit), ...desktop]
  return desktop.length > 0 ? desktop : noDisplay()
}

/** The largest output a reader may print for an image of at most `limit` bytes. */
export const outputCap = (encoding: Encoding, limit: number): number => {
  if (encoding === "raw") return limit
  if (encoding === "base64") return Math.ceil(limit / 3) * 4 + 2
  // «data PNGf…hex…» and a newline: 2 characters a byte, and the wrapper.
  return limit * 2 + 32
}

/** The image bytes in a reader's output; undefined when the output is not in its encoding. */
export const decodeOutput = (encoding: Encoding, stdout: Buffer): Uint8Array | undefined => {
  if (encoding === "raw") return stdout
  const text = stdout.toString("utf8").trim()
  if (encoding === "base64") {
    const compact = text.replace(/\s+/g, "")
    return /^[A-Za-z0-9+/]*={0,2}$/.test(compact) && compact.length % 4 === 0 ? Buffer.from(compact, "base64") : undefined
  }
  const match = /^«data [A-Za-z0-9 ]{4}([0-9A-Fa-f]*)»$/.exec(text)
  const hex = match?.[1]
  return hex === undefined || hex.length % 2 !== 0 ? undefined : Buffer.from(hex, "hex")
}
