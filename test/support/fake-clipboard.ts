/**
 * Fake clipboard readers: real executables (shell scripts) named `xclip` or `wl-paste`, for a
 * directory put first on PATH. They answer like the real ones (a listing of types, then the bytes
 * of the type asked for; the real programs' wording for an empty clipboard) from files the test
 * writes, and log each argv to `calls.log`. They need nothing on PATH (/bin/cat, /bin/sleep), so
 * a PATH of the fakes' directory alone is one without any real reader.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"

export type FakeReaderName = "xclip" | "wl-paste"

export type FakeClipboard =
  /** Offers `types`; any read prints `data`, after `delaySeconds` when given. */
  | { readonly types: ReadonlyArray<string>; readonly data?: Uint8Array; readonly delaySeconds?: number }
  /** Nothing copied: the real reader's message and exit code. */
  | { readonly empty: true }
  /** Every call fails with this stderr and exit code. */
  | { readonly fail: string; readonly exit?: number }
  /** Never answers (for the time limit); its pid goes to `NAME.pid`. */
  | { readonly hang: true }

const emptyMessage: Record<FakeReaderName, string> = {
  xclip: "Error: target TARGETS not available",
  "wl-paste": "Nothing is copied"
}

const script = (name: FakeReaderName, dir: string, clipboard: FakeClipboard): string => {
  const quoted = (value: string) => `'${value.replaceAll("'", "'\\''")}'`
  const data = quoted(path.join(dir, `${name}.data`))
  const types = quoted(path.join(dir, `${name}.types`))
  const log = `printf '%s\\n' "${name} $*" >> ${quoted(path.join(dir, "calls.log"))}`
  const listing = name === "xclip" ? "*TARGETS*" : "*--list-types*"
  if ("empty" in clipboard) return `#!/bin/sh\n${log}\necho ${quoted(emptyMessage[name])} >&2\nexit 1\n`
  if ("fail" in clipboard) return `#!/bin/sh\n${log}\nprintf '%s\\n' ${quoted(clipboard.fail)} >&2\nexit ${clipboard.exit ?? 1}\n`
  if ("hang" in clipboard) return `#!/bin/sh\n${log}\nprintf '%s' $$ > ${quoted(path.join(dir, `${name}.pid`))}\nexec /bin/sleep 30\n`
  const delay = clipboard.delaySeconds === undefined ? "" : `/bin/sleep ${clipboard.delaySeconds}; `
  return `#!/bin/sh\n${log}\ncase "$*" in\n  ${listing}) exec /bin/cat ${types} ;;\n  *) ${delay}exec /bin/cat ${data} ;;\nesac\n`
}

/** Writes the fake `name` into `dir` (replacing an earlier one). */
export const writeFakeReader = async (dir: string, name: FakeReaderName, clipboard: FakeClipboard): Promise<void> => {
  await fs.mkdir(dir, { recursive: true })
  if ("types" in clipboard) {
    await fs.writeFile(path.join(dir, `${name}.types`), clipboard.types.map((type) => `${type}\n`).join(""))
    await fs.writeFile(path.join(dir, `${name}.data`), clipboard.data ?? new Uint8Array())
  }
  const file = path.join(dir, name)
  await fs.writeFile(`${file}.tmp`, script(name, dir, clipboard), { mode: 0o755 })
  // Renamed into place: a reader running right now keeps the old file, never a half-written one.
  await fs.rename(`${file}.tmp`, file)
}

/** The argv lines the fakes in `dir` were called with, in order. */
export const fakeReaderCalls = async (dir: string): Promise<ReadonlyArray<string>> =>
  (await fs.readFile(path.join(dir, "calls.log"), "utf8").catch(() => "")).split("\n").filter((line) => line !== "")
