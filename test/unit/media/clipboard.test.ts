/**
 * Reading the clipboard's image: which reader each platform uses, with which argv, and every
 * operator error, through fake readers that are real executables first on PATH.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import { describe, expect, it } from "vitest"
import { ClipboardError } from "../../../src/media/clipboard-errors.ts"
import {
  clipboardReaders,
  decodeOutput,
  encodePowershell,
  isWsl,
  parseMacClipboardInfo,
  parseMimeList,
  powershellScript,
  type ClipboardHost,
  type ClipboardReader
} from "../../../src/media/clipboard-readers.ts"
import { osascript, windowsPowershell } from "../../../src/media/clipboard-readers.ts"
import { readClipboardImage, readWith } from "../../../src/media/clipboard.ts"
import { maxImageBytes } from "../../../src/media/media-store.ts"
import { fakeReaderCalls, writeFakeReader } from "../../support/fake-clipboard.ts"
import { jpegHeader, makePng, tinyGif } from "../../support/images.ts"
import { tempDir } from "../../support/temp.ts"

const linux = (env: Record<string, string>, procVersion = "Linux version 6.1.0 (debian-kernel@lists.debian.org)"): ClipboardHost => ({
  platform: "linux",
  env,
  procVersion
})

const commands = (readers: ReadonlyArray<ClipboardReader> | ClipboardError) =>
  readers instanceof ClipboardError ? readers.reason : readers.map((reader) => reader.command)

const failure = async (effect: Effect.Effect<unknown, ClipboardError>): Promise<ClipboardError> => {
  const exit = await Effect.runPromiseExit(effect)
  if (Exit.isSuccess(exit) || exit.cause._tag !== "Fail") throw new Error(`expected a failure, got ${String(exit)}`)
  return exit.cause.error
}

describe("which reader each platform uses", () => {
  it("Linux: wl-paste for WAYLAND_DISPLAY, xclip for DISPLAY, Wayland first when both; XDG_SESSION_TYPE decides nothing", () => {
    expect(commands(clipboardReaders(linux({ WAYLAND_DISPLAY: "wayland-0" }), maxImageBytes))).toEqual(["wl-paste"])
    expect(commands(clipboardReaders(linux({ DISPLAY: ":0" }), maxImageBytes))).toEqual(["xclip"])
    expect(commands(clipboardReaders(linux({ DISPLAY: ":0", WAYLAND_DISPLAY: "wayland-0" }), maxImageBytes))).toEqual(["wl-paste", "xclip"])
    expect(commands(clipboardReaders(linux({ DISPLAY: ":0", XDG_SESSION_TYPE: "wayland" }), maxImageBytes))).toEqual(["xclip"])
    expect(commands(clipboardReaders(linux({ XDG_SESSION_TYPE: "x11" }), maxImageBytes))).toBe("no-display")
    expect(commands(clipboardReaders(linux({ DISPLAY: "" }), maxImageBytes))).toBe("no-display")
  })

  it("lists the offered types first, and reads the chosen one", () => {
    const [wl, x] = clipboardReaders(linux({ DISPLAY: ":0", WAYLAND_DISPLAY: "w" }), maxImageBytes) as ReadonlyArray<ClipboardReader>
    expect(wl?.list?.args).toEqual(["--list-types"])
    expect(wl?.read("image/jpeg")).toEqual(["--no-newline", "--type", "image/jpeg"])
    expect(x?.list?.args).toEqual(["-selection", "clipboard", "-t", "TARGETS", "-o"])
    expect(x?.read("image/png")).toEqual(["-selection", "clipboard", "-t", "image/png", "-o"])
  })

  it("macOS: the system osascript, clipboard info first, the bytes as AppleScript data", () => {
    const [reader] = clipboardReaders({ platform: "darwin", env: { DISPLAY: ":0" }, procVersion: undefined }, maxImageBytes) as ReadonlyArray<ClipboardReader>
    expect(reader?.command).toBe("/usr/bin/osascript")
    expect(reader?.list?.args).toEqual(["-e", "clipboard info"])
    expect(reader?.read("«class PNGf»")).toEqual(["-e", "the clipboard as «class PNGf»"])
    expect(reader?.encoding).toBe("applescript-hex")
  })

  it("Windows: Windows PowerShell by its full path under SystemRoot, the script passed encoded", () => {
    const readers = clipboardReaders({ platform: "win32", env: { SystemRoot: "D:\\Win\\" }, procVersion: undefined }, maxImageBytes)
    expect(commands(readers)).toEqual(["D:\\Win\\System32\\WindowsPowerShell\\v1.0\\powershell.exe"])
    expect(commands(clipboardReaders({ platform: "win32", env: {}, procVersion: undefined }, maxImageBytes))).toEqual([
      "C:\\Windows\\System32\\WindowsPowerShell\\v1.0\\powershell.exe"
    ])
    const args = (readers as ReadonlyArray<ClipboardReader>)[0]?.read(undefined) ?? []
    expect(args.slice(0, 4)).toEqual(["-NoProfile", "-NonInteractive", "-STA", "-EncodedCommand"])
    expect(Buffer.from(args[4] ?? "", "base64").toString("utf16le")).toBe(powershellScript(maxImageBytes))
  })

  it("the PowerShell script reads PNG bytes first, then converts the bitmap, and bounds what it prints", () => {
    const script = powershellScript(1234)
    expect(script.indexOf("GetData('PNG')")).toBeLessThan(script.indexOf("GetImage()"))
    expect(script).toContain("ImageFormat]::Png")
    expect(script).toContain("-gt 1234) { exit 4 }")
    expect(script).toContain("ToBase64String")
    expect(encodePowershell("a")).toBe("YQA=")
  })

  it("WSL (by WSL_DISTRO_NAME or /proc/version): PowerShell under /mnt/c first, then the desktop readers", () => {
    const viaProc = linux({ DISPLAY: ":0" }, "Linux version 5.15.90.1-microsoft-standard-WSL2")
    expect(isWsl(viaProc)).toBe(true)
    expect(commands(clipboardReaders(viaProc, maxImageBytes))).toEqual(["/mnt/c/Windows/System32/WindowsPowerShell/v1.0/powershell.exe", "xclip"])
    const viaEnv = linux({ WSL_DISTRO_NAME: "Ubuntu" })
    expect(commands(clipboardReaders(viaEnv, maxImageBytes))).toEqual(["/mnt/c/Windows/System32/WindowsPowerShell/v1.0/powershell.exe"])
    expect(isWsl(linux({}))).toBe(false)
  })
})

describe("reading listings and output", () => {
  it("takes png, jpeg, gif, webp in that order; another image type is read to say what it is", () => {
    expect(parseMimeList("text/plain\nimage/webp\nimage/gif\nimage/jpeg\nimage/png\n")).toEqual({ _tag: "Read", type: "image/png" })
    expect(parseMimeList("image/webp\nimage/gif\n")).toEqual({ _tag: "Read", type: "image/gif" })
    expect(parseMimeList("TARGETS\nimage/bmp\n")).toEqual({ _tag: "Read", type: "image/bmp" })
    expect(parseMimeList("TARGETS\nUTF8_STRING\n")).toEqual({ _tag: "NoImage", holds: "text" })
    expect(parseMimeList("x-special/gnome-copied-files\n")).toEqual({ _tag: "NoImage", holds: "copied files" })
    expect(parseMimeList("TARGETS\nTIMESTAMP\n")).toEqual({ _tag: "NoImage", holds: undefined })
  })

  it("reads macOS clipboard info: PNG, then JPEG, then GIF; TIFF alone is unsupported; text is no image", () => {
    expect(parseMacClipboardInfo("«class PNGf», 1234, JPEG picture, 999, TIFF picture, 5000")).toEqual({ _tag: "Read", type: "«class PNGf»" })
    expect(parseMacClipboardInfo("GIF picture, 100, JPEG picture, 999")).toEqual({ _tag: "Read", type: "JPEG picture" })
    expect(parseMacClipboardInfo("GIF picture, 100")).toEqual({ _tag: "Read", type: "GIF picture" })
    expect(parseMacClipboardInfo("TIFF picture, 5000")).toEqual({ _tag: "Unsupported", seen: "a TIFF image" })
    expect(parseMacClipboardInfo("«class utf8», 5, string, 5")).toEqual({ _tag: "NoImage", holds: "text" })
    expect(parseMacClipboardInfo("")).toEqual({ _tag: "NoImage", holds: undefined })
  })

  it("decodes AppleScript data and base64, and refuses anything else", () => {
    const png = makePng(2, 2)
    expect(Buffer.from(decodeOutput("applescript-hex", Buffer.from(`«data PNGf${png.toString("hex").toUpperCase()}»\n`)) ?? [])).toEqual(png)
    expect(decodeOutput("applescript-hex", Buffer.from("«data PNGf0A1»"))).toBeUndefined()
    expect(decodeOutput("applescript-hex", Buffer.from("missing value"))).toBeUndefined()
    expect(Buffer.from(decodeOutput("base64", Buffer.from(`${png.toString("base64")}\r\n`)) ?? [])).toEqual(png)
    expect(decodeOutput("base64", Buffer.from("not base64!"))).toBeUndefined()
  })
})

describe("readClipboardImage through fake readers on PATH", () => {
  const setup = async () => {
    const bin = await tempDir("crystal-clip-")
    const host = (env: Record<string, string>): ClipboardHost => linux({ PATH: `${bin}:/usr/bin:/bin`, ...env })
    return { bin, host }
  }

  it("reads the PNG xclip offers, asking for the type the listing named", async () => {
    const { bin, host } = await setup()
    const png = makePng(3, 2)
    await writeFakeReader(bin, "xclip", { types: ["TARGETS", "UTF8_STRING", "image/jpeg", "image/png"], data: png })
    const image = await Effect.runPromise(readClipboardImage({ host: host({ DISPLAY: ":0" }) }))
    expect(image.mime).toBe("image/png")
    expect(image.reader).toBe("xclip")
    expect(Buffer.from(image.bytes)).toEqual(png)
    expect(await fakeReaderCalls(bin)).toEqual(["xclip -selection clipboard -t TARGETS -o", "xclip -selection clipboard -t image/png -o"])
  })

  it("tries Wayland first, then X when wl-paste is missing or fails", async () => {
    const { bin, host } = await setup()
    await writeFakeReader(bin, "xclip", { types: ["image/jpeg"], data: jpegHeader(4, 4) })
    const both = host({ DISPLAY: ":0", WAYLAND_DISPLAY: "wayland-9" })
    expect((await Effect.runPromise(readClipboardImage({ host: both }))).mime).toBe("image/jpeg")
    await writeFakeReader(bin, "wl-paste", { fail: "Failed to connect to a Wayland server" })
    expect((await Effect.runPromise(readClipboardImage({ host: both }))).reader).toBe("xclip")
    await writeFakeReader(bin, "wl-paste", { types: ["image/gif"], data: tinyGif() })
    expect((await Effect.runPromise(readClipboardImage({ host: both }))).reader).toBe("wl-paste")
  })

  it("names the package to install when no reader is there, and never needs one before a paste", async () => {
    const empty = await tempDir("crystal-clip-")
    const onPath = (env: Record<string, string>) => linux({ PATH: empty, ...env })
    expect((await failure(readClipboardImage({ host: onPath({ DISPLAY: ":0" }) }))).message).toBe(
      "cannot read the clipboard: xclip is not installed; install xclip"
    )
    expect((await failure(readClipboardImage({ host: onPath({ WAYLAND_DISPLAY: "w" }) }))).message).toBe(
      "cannot read the clipboard: wl-paste is not installed; install wl-clipboard"
    )
    const both = await failure(readClipboardImage({ host: onPath({ DISPLAY: ":0", WAYLAND_DISPLAY: "w" }) }))
    expect(both.reason).toBe("no-reader")
    expect(both.message).toBe("cannot read the clipboard: neither wl-paste nor xclip is installed; install wl-clipboard or xclip")
    const headless = await failure(readClipboardImage({ host: onPath({}) }))
    expect(headless.reason).toBe("no-display")
    expect(headless.message).toMatch(/^cannot read the clipboard: neither WAYLAND_DISPLAY nor DISPLAY is set/)
  })

  it("tells an empty clipboard from one holding text, for both readers", async () => {
    const { bin, host } = await setup()
    for (const name of ["xclip", "wl-paste"] as const) {
      const env = name === "xclip" ? { DISPLAY: ":0" } : { WAYLAND_DISPLAY: "w" }
      await writeFakeReader(bin, name, { empty: true })
      const empty = await failure(readClipboardImage({ host: host(env) }))
      expect([empty.reason, empty.message]).toEqual(["no-image", "the clipboard is empty: copy an image first"])
      await writeFakeReader(bin, name, { types: ["TARGETS", "UTF8_STRING", "text/plain"], data: Buffer.from("hello") })
      const text = await failure(readClipboardImage({ host: host(env) }))
      expect([text.reason, text.message]).toEqual(["no-image", "the clipboard holds text, no image: copy an image first"])
    }
  })

  it("says what unsupported bytes are", async () => {
    const { bin, host } = await setup()
    await writeFakeReader(bin, "xclip", { types: ["image/bmp"], data: Buffer.from("BM\x36\x00\x00\x00", "latin1") })
    const bmp = await failure(readClipboardImage({ host: host({ DISPLAY: ":0" }) }))
    expect([bmp.reason, bmp.message]).toEqual([
      "unsupported",
      "the clipboard image is not png/jpeg/gif/webp but a BMP image: save it as PNG and paste its path"
    ])
    // A program that claims image/png and hands over something else.
    await writeFakeReader(bin, "xclip", { types: ["image/png"], data: Buffer.from("<html>not a picture</html>") })
    expect((await failure(readClipboardImage({ host: host({ DISPLAY: ":0" }) }))).message).toContain("but text, not image bytes:")
  })

  it("kills a reader whose output passes the cap, and takes an image of exactly the cap", async () => {
    const { bin, host } = await setup()
    const limit = 64 * 1024
    const exact = Buffer.alloc(limit)
    makePng(1, 1).copy(exact)
    await writeFakeReader(bin, "xclip", { types: ["image/png"], data: exact })
    expect((await Effect.runPromise(readClipboardImage({ host: host({ DISPLAY: ":0" }), limit }))).bytes.length).toBe(limit)
    await writeFakeReader(bin, "xclip", { types: ["image/png"], data: Buffer.concat([exact, Buffer.alloc(1)]) })
    const tooLarge = await failure(readClipboardImage({ host: host({ DISPLAY: ":0" }), limit }))
    expect(tooLarge.reason).toBe("too-large")
    const real = await failure(
      Effect.gen(function* () {
        yield* Effect.promise(() => writeFakeReader(bin, "xclip", { types: ["image/png"], data: Buffer.alloc(maxImageBytes + 4096, 1) }))
        return yield* readClipboardImage({ host: host({ DISPLAY: ":0" }) })
      })
    )
    expect(real.message).toBe("the clipboard image is larger than 20 MiB, the limit: copy a smaller or downscaled image")
  })

  it("reports a failed reader by its stderr's first line, and one that does not answer in time", async () => {
    const { bin, host } = await setup()
    await writeFakeReader(bin, "xclip", { fail: "\nError: Can't open display: :7\nmore detail", exit: 1 })
    const failed = await failure(readClipboardImage({ host: host({ DISPLAY: ":7" }) }))
    expect([failed.reason, failed.message]).toEqual(["failed", "the clipboard reader xclip failed: Error: Can't open display: :7"])
    await writeFakeReader(bin, "xclip", { fail: "", exit: 3 })
    expect((await failure(readClipboardImage({ host: host({ DISPLAY: ":0" }) }))).message).toBe(
      "the clipboard reader xclip failed: it exited with code 3 and no message"
    )
    await writeFakeReader(bin, "xclip", { hang: true })
    const started = Date.now()
    const slow = await failure(readClipboardImage({ host: host({ DISPLAY: ":0" }), timeoutMs: 300 }))
    expect(slow.message).toBe("the clipboard reader xclip failed: no answer within 0.3 s (the program holding the clipboard may be busy); try again")
    expect(Date.now() - started).toBeLessThan(10_000)
  })

  it("kills the reader when the read is interrupted", async () => {
    const { bin, host } = await setup()
    await writeFakeReader(bin, "xclip", { hang: true })
    const exit = await Effect.runPromiseExit(readClipboardImage({ host: host({ DISPLAY: ":0" }) }).pipe(Effect.timeout("300 millis")))
    expect(Exit.isFailure(exit)).toBe(true)
    const pid = Number(await fs.readFile(path.join(bin, "xclip.pid"), "utf8"))
    const alive = () => {
      try {
        process.kill(pid, 0)
        return true
      } catch {
        return false
      }
    }
    for (let tries = 0; tries < 40 && alive(); tries++) await new Promise((resolve) => setTimeout(resolve, 50))
    expect(alive()).toBe(false)
  })
})

/**
 * The macOS and Windows readers cannot run here; their output and exit codes are read the same
 * way whoever prints them, so stand-ins at another path print what osascript and PowerShell would.
 */
describe("the macOS and Windows readers' output, from stand-ins", () => {
  const standIn = async (dir: string, name: string, body: string): Promise<string> => {
    const file = path.join(dir, name)
    await fs.writeFile(file, `#!/bin/sh\nprintf '%s\\n' "$*" >> ${JSON.stringify(path.join(dir, "calls.log"))}\n${body}`, { mode: 0o755 })
    return file
  }

  it("osascript: clipboard info, then the PNG as AppleScript data", async () => {
    const dir = await tempDir("crystal-clip-")
    const png = makePng(4, 3)
    await fs.writeFile(path.join(dir, "info"), "«class PNGf», 120, «class 8BPS», 900, TIFF picture, 4000\n")
    await fs.writeFile(path.join(dir, "data"), `«data PNGf${png.toString("hex").toUpperCase()}»\n`)
    const command = await standIn(dir, "osascript", `case "$2" in "clipboard info") exec /bin/cat ${dir}/info ;; *) exec /bin/cat ${dir}/data ;; esac\n`)
    const image = await Effect.runPromise(readWith([{ ...osascript, command }], { PATH: "/usr/bin:/bin" }))
    expect([image.mime, Buffer.from(image.bytes)]).toEqual(["image/png", png])
    expect((await fs.readFile(path.join(dir, "calls.log"), "utf8")).split("\n")).toEqual(["-e clipboard info", "-e the clipboard as «class PNGf»", ""])
  })

  it("PowerShell: base64 over CRLF, and its exit codes for text, nothing, and too large", async () => {
    const dir = await tempDir("crystal-clip-")
    const png = makePng(2, 2)
    const reader = async (body: string) => windowsPowershell(await standIn(dir, "powershell.exe", body), maxImageBytes)
    const env = { PATH: "/usr/bin:/bin" }
    const image = await Effect.runPromise(readWith([await reader(`printf '%s\\r\\n' ${png.toString("base64")}\n`)], env))
    expect(Buffer.from(image.bytes)).toEqual(png)
    expect((await failure(readWith([await reader("exit 2\n")], env))).message).toBe("the clipboard holds text, no image: copy an image first")
    expect((await failure(readWith([await reader("exit 3\n")], env))).message).toBe("the clipboard is empty: copy an image first")
    expect((await failure(readWith([await reader("exit 4\n")], env))).reason).toBe("too-large")
    const broken = await failure(readWith([await reader("echo 'Add-Type : Cannot add type. The assembly could not be found.' >&2; exit 1\n")], env))
    expect(broken.message).toBe("the clipboard reader Windows PowerShell failed: Add-Type : Cannot add type. The assembly could not be found.")
    const missing = await failure(readWith([windowsPowershell("/mnt/c/nowhere/powershell.exe", maxImageBytes)], env))
    expect(missing.message).toBe("cannot read the clipboard: Windows PowerShell is not installed; install Windows PowerShell (looked for /mnt/c/nowhere/powershell.exe)")
  })
})
