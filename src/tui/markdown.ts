/**
 * Light Markdown for streamed answers, one complete line at a time: headings, bold, inline code,
 * fenced code blocks and list bullets. A line is styled only once its newline has arrived, so a
 * half-received `**bold` or code fence is never drawn wrongly; the caller shows the unfinished
 * tail as plain text meanwhile. Without colour the source is kept as it is (it reads well).
 */
import type { Palette } from "../terminal/colors.ts"
import { InertStream } from "../terminal/inert.ts"

export interface MarkdownState {
  /** The fence that opened the current code block ("```" or "~~~", with its length), if any. */
  readonly fence: string | undefined
}

export const initialMarkdown: MarkdownState = { fence: undefined }

const fencePattern = /^\s{0,3}(`{3,}|~{3,})(.*)$/

/** Bold and inline code inside one line; an unmatched marker stays as typed. */
export const renderInline = (line: string, palette: Palette): string => {
  let out = ""
  let i = 0
  while (i < line.length) {
    if (line[i] === "`") {
      const close = line.indexOf("`", i + 1)
      if (close > i + 1) {
        out += palette.cyan(line.slice(i + 1, close))
        i = close + 1
        continue
      }
    }
    if (line.startsWith("**", i) || line.startsWith("__", i)) {
      const marker = line.slice(i, i + 2)
      const close = line.indexOf(marker, i + 2)
      if (close > i + 2) {
        out += palette.bold(renderInline(line.slice(i + 2, close), palette))
        i = close + 2
        continue
      }
    }
    out += line[i]
    i++
  }
  return out
}

export const renderMarkdownLine = (line: string, state: MarkdownState, palette: Palette): { readonly text: string; readonly state: MarkdownState } => {
  const fence = fencePattern.exec(line)
  if (state.fence !== undefined) {
    if (fence !== null && fence[1]?.[0] === state.fence[0] && (fence[1]?.length ?? 0) >= state.fence.length && (fence[2] ?? "").trim() === "") {
      return { text: palette.isColorSupported ? palette.dim("╰─") : line, state: { fence: undefined } }
    }
    return { text: palette.isColorSupported ? `${palette.dim("│")} ${palette.green(line)}` : line, state }
  }
  if (fence !== null) {
    const language = (fence[2] ?? "").trim()
    return { text: palette.isColorSupported ? palette.dim(`╭─${language === "" ? "" : ` ${language}`}`) : line, state: { fence: fence[1] } }
  }
  if (!palette.isColorSupported) return { text: line, state }
  const heading = /^(#{1,6})\s+(.*)$/.exec(line)
  if (heading !== null) return { text: palette.bold(palette.magenta(renderInline(heading[2] ?? "", palette))), state }
  const bullet = /^(\s*)[-*+]\s+(.*)$/.exec(line)
  if (bullet !== null) return { text: `${bullet[1]}${palette.dim("•")} ${renderInline(bullet[2] ?? "", palette)}`, state }
  const numbered = /^(\s*)(\d+[.)])\s+(.*)$/.exec(line)
  if (numbered !== null) return { text: `${numbered[1]}${palette.dim(numbered[2] ?? "")} ${renderInline(numbered[3] ?? "", palette)}`, state }
  if (/^\s*([-*_])(\s*\1){2,}\s*$/.test(line)) return { text: palette.dim("─".repeat(20)), state }
  return { text: renderInline(line, palette), state }
}

/** Feeds deltas in; complete lines come out rendered, the unfinished tail is kept as `partial`. */
export class MarkdownStream {
  private state: MarkdownState = initialMarkdown
  /** Model text is made inert as it arrives, so `partial` and every line are inert already. */
  private readonly inert = new InertStream()
  partial = ""

  private readonly palette: Palette

  constructor(palette: Palette) {
    this.palette = palette
  }

  push(delta: string): Array<string> {
    const text = this.inert.push(delta)
    // Most tokens end no line: appending keeps a long line linear, not split again per token.
    if (!text.includes("\n")) {
      this.partial += text
      return []
    }
    const lines = (this.partial + text).split("\n")
    this.partial = lines.pop() ?? ""
    return lines.map((line) => this.render(line))
  }

  /** The tail as it may be shown before its newline arrives: plain, inside a code block dressed as code. */
  partialPreview(): string {
    return this.state.fence !== undefined && this.palette.isColorSupported ? `${this.palette.dim("│")} ${this.partial}` : this.partial
  }

  /** Ends the message: the tail becomes a rendered line; an open code block is left open (nothing to close). */
  end(): Array<string> {
    this.inert.end()
    const rest = this.partial === "" ? [] : [this.render(this.partial)]
    this.partial = ""
    this.state = initialMarkdown
    return rest
  }

  private render(line: string): string {
    const rendered = renderMarkdownLine(line, this.state, this.palette)
    this.state = rendered.state
    return rendered.text
  }
}
