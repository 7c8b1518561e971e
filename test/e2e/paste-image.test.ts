/**
 * Pasting images in the terminal (SPEC I4/I5): the compiled binary in tmux, fake `xclip` and
 * `wl-paste` (real executables) alone on PATH, a fake OpenAI-compatible server whose model takes
 * images. What is checked is what the operator sees and what reaches the wire.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { execFileSync } from "node:child_process"
import { afterEach, describe, expect, it } from "vitest"
import { crystalBinary, makeSandbox, sessionFiles, readSession, type Sandbox } from "../support/crystal.ts"
import { fakeReaderCalls, writeFakeReader } from "../support/fake-clipboard.ts"
import { startFakeLlm, type FakeLlm, type RecordedRequest } from "../support/fake-llm/server.ts"
import { makePng } from "../support/images.ts"
import { openTerminal, tmuxAvailable, type Terminal } from "../support/tmux.ts"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const ready = /approval default · local\/vision-model/
const isTitleRequest = (request: RecordedRequest) => JSON.stringify(request.body).includes("Name this coding session")

/** The image_url parts of the last user message of a Chat Completions request. */
const userImages = (request: RecordedRequest): ReadonlyArray<string> => {
  const messages = (request.body as { messages: ReadonlyArray<{ role: string; content: unknown }> }).messages
  const user = [...messages].reverse().find((message) => message.role === "user")
  const content = Array.isArray(user?.content) ? (user.content as ReadonlyArray<{ type: string; image_url?: { url: string } }>) : []
  return content.flatMap((part) => (part.type === "image_url" && part.image_url !== undefined ? [part.image_url.url] : []))
}

const userText = (request: RecordedRequest): string => {
  const messages = (request.body as { messages: ReadonlyArray<{ role: string; content: unknown }> }).messages
  const user = [...messages].reverse().find((message) => message.role === "user")
  if (typeof user?.content === "string") return user.content
  const parts = (user?.content ?? []) as ReadonlyArray<{ type: string; text?: string }>
  return parts.flatMap((part) => (part.type === "text" && part.text !== undefined ? [part.text] : [])).join("")
}

describe.runIf(tmuxAvailable())("pasting images in a terminal", () => {
  /** A session whose PATH holds only `bin` (the fake readers), on a model with imageInput. */
  const start = async (display: Record<string, string>, options: { imageInput?: boolean } = {}) => {
    const sandbox: Sandbox = await makeSandbox({ "README.md": "# hello\n" })
    const bin = path.join(sandbox.home, "..", "bin")
    await fs.mkdir(bin)
    const fake: FakeLlm = await startFakeLlm()
    cleanups.push(() => fake.close())
    const models = { "vision-model": { contextWindow: 32768, imageInput: options.imageInput ?? true } }
    await fs.writeFile(
      path.join(sandbox.home, "config.json"),
      JSON.stringify({ model: "local/vision-model", providers: { local: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, models } } })
    )
    const terminal: Terminal = openTerminal([crystalBinary], {
      cwd: sandbox.workspace,
      env: { ...sandbox.env, PATH: bin, TERM: "xterm", ...display }
    })
    cleanups.push(() => terminal.close())
    await terminal.waitFor(ready)
    return { sandbox, bin, fake, terminal }
  }

  /** The editor's line (the prompt row), without the trailing blanks. */
  const promptLine = (screen: string): string => (screen.split("\n").filter((line) => line.startsWith("› ")).at(-1) ?? "").trimEnd()

  it("pastes xclip's PNG as an atomic marker, one Backspace removes it, and the sent request carries exactly those bytes", async () => {
    const { sandbox, bin, fake, terminal } = await start({ DISPLAY: ":0" })
    const png = makePng(64, 48, { noise: true, seed: 7 })
    await writeFakeReader(bin, "xclip", { types: ["TARGETS", "UTF8_STRING", "image/png"], data: png })
    fake.script([{ text: "A noisy square." }, { text: "Pasting images" }])

    terminal.type("look at ")
    terminal.press("C-v")
    await terminal.waitFor(/^› look at \[Image #1\]\s*$/m)
    // One Backspace removes the whole marker; Left then never lands inside the next one.
    terminal.press("BSpace")
    await terminal.waitFor(/^› look at\s*$/m)
    terminal.press("C-v")
    await terminal.waitFor(/\[Image #2\]/)
    terminal.type(" and [Image #1] typed by hand")
    terminal.press("Enter")
    await terminal.waitFor(/A noisy square\./)

    const request = fake.requests.find((candidate) => !isTitleRequest(candidate))
    expect(request).toBeDefined()
    if (request === undefined) return
    expect(userText(request)).toContain("look at [Image #2] and [Image #1] typed by hand")
    // Only the attached marker produced an image: the deleted #1 and the typed one did not.
    expect(userImages(request)).toEqual([`data:image/png;base64,${png.toString("base64")}`])
    expect(await fakeReaderCalls(bin)).toContain("xclip -selection clipboard -t image/png -o")

    // The bytes were kept once, owner-only, under their hash; the session names them by hash.
    const media = path.join(sandbox.home, "media")
    const kept = await fs.readdir(media)
    expect(kept).toHaveLength(1)
    const stat = await fs.stat(path.join(media, kept[0] ?? ""))
    expect(stat.size).toBe(png.length)
    expect(stat.mode & 0o777).toBe(0o600)
    const [file] = await sessionFiles(sandbox)
    const user = (await readSession(file ?? "")).items.find((item) => item["_tag"] === "user")
    expect(user?.["images"]).toEqual([{ sha256: kept[0], mime: "image/png", marker: "[Image #2]" }])
  })

  it("handles the keys typed behind Ctrl+V after the attach, in order: Ctrl+V then Enter sends the image", async () => {
    const { bin, fake, terminal } = await start({ WAYLAND_DISPLAY: "wayland-test" })
    const png = makePng(8, 8)
    await writeFakeReader(bin, "wl-paste", { types: ["text/plain", "image/png"], data: png, delaySeconds: 0.6 })
    fake.script([{ text: "Got it." }, { text: "Title" }])
    terminal.type("what is ")
    terminal.press("C-v")
    terminal.type("this?")
    terminal.press("Enter")
    await terminal.waitFor(/reading the clipboard… · Ctrl\+C cancels/)
    await terminal.waitFor(/Got it\./)
    const request = fake.requests.find((candidate) => !isTitleRequest(candidate))
    if (request === undefined) throw new Error("no model request")
    expect(userText(request)).toBe("what is [Image #1]this?")
    expect(userImages(request)).toEqual([`data:image/png;base64,${png.toString("base64")}`])
    expect(await fakeReaderCalls(bin)).toEqual(["wl-paste --list-types", "wl-paste --no-newline --type image/png"])
  })

  it("cancels a paste whose reader hangs on Ctrl+C, killing the reader and dropping the keys typed behind it", async () => {
    const { bin, terminal } = await start({ DISPLAY: ":0" })
    await writeFakeReader(bin, "xclip", { hang: true })
    terminal.type("keep ")
    terminal.press("C-v")
    await terminal.waitFor(/reading the clipboard… · Ctrl\+C cancels/)
    terminal.type("dropped")
    terminal.press("C-c")
    await terminal.waitFor(/^paste cancelled$/m)
    expect(promptLine(terminal.screen())).toBe("› keep")
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
    // The cancelled paste kept its number: the next one is #2.
    await writeFakeReader(bin, "xclip", { types: ["image/png"], data: makePng(2, 2) })
    terminal.press("C-v")
    await terminal.waitFor(/^› keep \[Image #2\]\s*$/m)
  })

  it("shows each failure as one line, inserts nothing, and leaves a gap in the numbering", async () => {
    const { bin, fake, terminal } = await start({ DISPLAY: ":0" })
    const failures: ReadonlyArray<readonly [() => Promise<void>, RegExp]> = [
      [async () => {}, /^cannot read the clipboard: xclip is not installed; install xclip$/m],
      [() => writeFakeReader(bin, "xclip", { empty: true }), /^the clipboard is empty: copy an image first$/m],
      [
        () => writeFakeReader(bin, "xclip", { types: ["TARGETS", "UTF8_STRING"], data: Buffer.from("hello") }),
        /^the clipboard holds text, no image: copy an image first$/m
      ],
      [
        () => writeFakeReader(bin, "xclip", { types: ["image/bmp"], data: Buffer.from("BM6\x00\x00\x00\x00\x00", "latin1") }),
        /^the clipboard image is not png\/jpeg\/gif\/webp but a BMP image: save it as PNG and paste its path$/m
      ],
      [
        () => writeFakeReader(bin, "xclip", { types: ["image/png"], data: Buffer.concat([makePng(1, 1), Buffer.alloc(20 * 1024 * 1024)]) }),
        /^the clipboard image is larger than 20 MiB, the limit: copy a smaller or downscaled image$/m
      ],
      [
        () => writeFakeReader(bin, "xclip", { fail: "Error: Can't open display: :0" }),
        /^the clipboard reader xclip failed: Error: Can't open display: :0$/m
      ]
    ]
    terminal.type("before ")
    for (const [arrange, wording] of failures) {
      await arrange()
      terminal.press("C-v")
      await terminal.waitFor(wording)
      expect(promptLine(terminal.screen())).toBe("› before")
    }
    // Six failed pastes took #1–#6 for good (a text-only refusal would take none: see below).
    await writeFakeReader(bin, "xclip", { types: ["image/gif", "image/png"], data: makePng(2, 2) })
    terminal.press("M-v")
    await terminal.waitFor(/^› before \[Image #7\]\s*$/m)
    expect(fake.requests).toHaveLength(0)
  })

  it("attaches a dropped image path (quoted, escaped or a file:// URL) and pastes any other text as text", async () => {
    const { sandbox, fake, terminal } = await start({ DISPLAY: ":0" })
    const dir = path.join(sandbox.workspace, "my shots")
    await fs.mkdir(dir)
    const png = makePng(5, 5)
    await fs.writeFile(path.join(dir, "a.png"), png)
    const paste = (text: string) => {
      execFileSync("tmux", ["set-buffer", "-b", "crystal-drop", text])
      terminal.pasteBuffer("crystal-drop")
    }
    fake.script([{ text: "Three pictures." }, { text: "Title" }])
    paste(`'${dir}/a.png' `)
    await terminal.waitFor(/^› \[Image #1\]\s*$/m)
    paste(`${dir.replaceAll(" ", "\\ ")}/a.png`)
    await terminal.waitFor(/\[Image #2\]/)
    paste(`file://${encodeURI(`${dir}/a.png`)}`)
    await terminal.waitFor(/\[Image #3\]/)
    paste(` see ${dir}/a.png`)
    await terminal.waitFor(/\[Image #3\] see .*a\.png/)
    terminal.press("Enter")
    await terminal.waitFor(/Three pictures\./)
    const request = fake.requests.find((candidate) => !isTitleRequest(candidate))
    if (request === undefined) throw new Error("no model request")
    expect(userImages(request)).toEqual(Array(3).fill(`data:image/png;base64,${png.toString("base64")}`))
  })

  it("on a model without imageInput: Ctrl+V is refused before the clipboard is read, a dropped path stays text", async () => {
    const { sandbox, bin, terminal } = await start({ DISPLAY: ":0" }, { imageInput: false })
    await writeFakeReader(bin, "xclip", { types: ["image/png"], data: makePng(2, 2) })
    terminal.press("C-v")
    await terminal.waitFor(/local\/vision-model does not take images/)
    expect(await fakeReaderCalls(bin)).toEqual([])
    const file = path.join(sandbox.workspace, "b.png")
    await fs.writeFile(file, makePng(2, 2))
    execFileSync("tmux", ["set-buffer", "-b", "crystal-drop", file])
    terminal.pasteBuffer("crystal-drop")
    await terminal.waitFor(/the path was pasted as text/)
    expect(promptLine(terminal.screen())).toBe(`› ${file}`)
  })
})
