/**
 * A reader for git's config file syntax (.git/config, .gitmodules), enough to find the keys the
 * approval checks care about. Values are unquoted and unescaped as git does; a line it cannot
 * read is reported, so callers can fail closed.
 */

export interface ConfigEntry {
  /** `section.name` or `section.subsection.name`; section and name lower-cased, the subsection as written. */
  readonly key: string
  /** Undefined for a bare `name` line (git reads it as boolean true). */
  readonly value: string | undefined
}

export type ParsedConfig = { readonly ok: true; readonly entries: ReadonlyArray<ConfigEntry> } | { readonly ok: false; readonly line: string }

const HEADER = /^\[\s*([^\]\s"]+)(?:\s+"((?:[^"\\]|\\.)*)")?\s*\](.*)$/
const ENTRY = /^([A-Za-z][A-Za-z0-9-]*)\s*(?:=(.*))?$/

export const parseGitConfig = (text: string): ParsedConfig => {
  const entries: Array<ConfigEntry> = []
  let section = ""
  const lines = text.split(/\r?\n/)
  for (let i = 0; i < lines.length; i++) {
    let line = (lines[i] ?? "").trim()
    if (line === "" || line.startsWith("#") || line.startsWith(";")) continue
    const header = HEADER.exec(line)
    if (header !== null) {
      const name = (header[1] ?? "").toLowerCase()
      section = header[2] === undefined ? name : `${name}.${header[2].replace(/\\(.)/g, "$1")}`
      line = (header[3] ?? "").trim()
      if (line === "" || line.startsWith("#") || line.startsWith(";")) continue
    }
    const entry = ENTRY.exec(line)
    if (entry === null || section === "") return { ok: false, line }
    let raw = entry[2]
    // A value whose line ends in a backslash goes on with the next line.
    while (raw !== undefined && /(^|[^\\])(\\\\)*\\$/.test(raw) && i + 1 < lines.length) raw = `${raw.slice(0, -1)}${lines[++i] ?? ""}`
    const value = raw === undefined ? undefined : unquote(raw)
    if (value === null) return { ok: false, line }
    entries.push({ key: `${section}.${(entry[1] ?? "").toLowerCase()}`, value })
  }
  return { ok: true, entries }
}

const ESCAPES: Readonly<Record<string, string>> = { '"': '"', "\\": "\\", n: "\n", t: "\t", b: "\b" }

/** A raw value as git reads it: quotes removed, escapes applied, comments and outer spaces dropped; null when malformed. */
const unquote = (raw: string): string | null => {
  let out = ""
  let quoted = false
  let pendingSpace = ""
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i] as string
    if (!quoted && (c === "#" || c === ";")) break
    if (!quoted && (c === " " || c === "\t")) {
      if (out !== "") pendingSpace += c
      continue
    }
    out += pendingSpace
    pendingSpace = ""
    if (c === '"') quoted = !quoted
    else if (c === "\\") {
      const escaped = ESCAPES[raw[++i] ?? ""]
      if (escaped === undefined) return null
      out += escaped
    } else out += c
  }
  return quoted ? null : out
}
