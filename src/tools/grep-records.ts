/** What both grep implementations produce, and how it becomes the tool's text. */

export interface GrepRequest {
  readonly pattern: string
  readonly ignoreCase: boolean
  /** Lines of context before and after each match (0 = none). */
  readonly context: number
  readonly filesOnly: boolean
  /** ripgrep `--glob` filter, already validated. */
  readonly glob: string | undefined
  /** Ignore root (real path): the workspace or a granted directory; rg's working directory. */
  readonly root: string
  /** Real path of the file or directory searched, inside `root`. */
  readonly target: string
  readonly targetIsFile: boolean
}

export type GrepRecord =
  | {
      readonly kind: "match" | "context"
      /** Relative to the root, `/`-separated. */
      readonly file: string
      readonly line: number
      readonly text: string
    }
  | { readonly kind: "separator" }
  | { readonly kind: "file"; readonly file: string }

export interface GrepResult {
  readonly records: ReadonlyArray<GrepRecord>
  /** The search stopped early because the output grew past GREP_MAX_RECORDS or GREP_MAX_TEXT. */
  readonly truncated: boolean
}

/** Both implementations stop at the same record, so a cut-off result is the same prefix. */
export const GREP_MAX_RECORDS = 50_000
export const GREP_MAX_TEXT = 16 * 1024 * 1024

export class RecordBudget {
  private records = 0
  private text = 0

  /** False once the record would exceed the budget (the search should stop). */
  admit(record: GrepRecord): boolean {
    this.records++
    this.text += record.kind === "match" || record.kind === "context" ? record.text.length + record.file.length : record.kind === "file" ? record.file.length : 2
    return this.records <= GREP_MAX_RECORDS && this.text <= GREP_MAX_TEXT
  }
}

/** rg's `--no-heading --with-filename --line-number` lines; a trailing CR of a line is dropped. */
export const formatRecords = (records: ReadonlyArray<GrepRecord>, display: (file: string) => string): Array<string> => {
  const names = new Map<string, string>()
  const name = (file: string): string => {
    let shown = names.get(file)
    if (shown === undefined) {
      shown = display(file)
      names.set(file, shown)
    }
    return shown
  }
  return records.map((record) => {
    switch (record.kind) {
      case "separator":
        return "--"
      case "file":
        return name(record.file)
      default: {
        const sep = record.kind === "match" ? ":" : "-"
        const text = record.text.endsWith("\r") ? record.text.slice(0, -1) : record.text
        return `${name(record.file)}${sep}${record.line}${sep}${text}`
      }
    }
  })
}
