import { describe, expect, it } from "vitest"
import { Screen } from "../../../src/tui/screen.ts"
import { loadPalette } from "../../../src/terminal/colors.ts"
import { controlsIn, hostile, hostileShown, withoutColours } from "../../support/hostile-text.ts"
import type { Terminal } from "../../../src/tui/terminal.ts"

const fakeTerminal = (columns: { value: number }, interactive = true) => {
  const written: Array<string> = []
  const transcript: Array<string> = []
  const terminal: Terminal = {
    interactive,
    write: (text) => written.push(text),
    transcript: interactive ? undefined : (text) => transcript.push(text),
    columns: () => columns.value,
    rows: () => 40,
    onResize: () => {},
    onInput: () => {},
    pauseInput: () => {},
    resumeInput: () => {},
    stream: process.stdout,
    restore: () => {}
  }
  return { terminal, written, transcript }
}

describe("screen", () => {
  it("redraws the live region from its top, wherever the cursor was left", () => {
    const columns = { value: 20 }
    const { terminal, written } = fakeTerminal(columns)
    const screen = new Screen(terminal)
    screen.live({ lines: ["partial", "› input", "status"], cursor: { row: 1, column: 7 } })
    expect(written.at(-1)).toBe("\x1b[?2026hpartial\r\n› input\r\nstatus\x1b[1A\r\x1b[7C\x1b[?25h\x1b[?2026l")
    // The cursor is on row 1 of 3: the next frame starts one row up, erasing to the end of the screen.
    screen.commit(["done"])
    expect(written.at(-1)).toBe("\x1b[?2026h\x1b[1A\r\x1b[Jdone\r\npartial\r\n› input\r\nstatus\x1b[1A\r\x1b[7C\x1b[?25h\x1b[?2026l")
  })

  it("wraps long lines so the next redraw climbs over every row, also after a resize", () => {
    const columns = { value: 11 }
    const { terminal, written } = fakeTerminal(columns)
    const screen = new Screen(terminal)
    screen.live({ lines: ["a long line of text", "x"] })
    expect(written.at(-1)).toContain("a long \r\nline of \r\ntext\r\nx")
    screen.live({ lines: ["y"] })
    expect(written.at(-1)).toMatch(/^\x1b\[\?2026h\x1b\[3A\r\x1b\[J/)
    // After a resize to 5 columns the terminal shows the 10-column row drawn before on 2 rows.
    screen.live({ lines: ["0123456789", "z"] })
    columns.value = 5
    screen.live({ lines: ["z"] })
    expect(written.at(-1)).toMatch(/^\x1b\[\?2026h\x1b\[2A\r\x1b\[J/)
  })

  it("writes plain lines and no live region when the output is not a terminal", () => {
    const { terminal, written, transcript } = fakeTerminal({ value: 80 }, false)
    const screen = new Screen(terminal)
    screen.live({ lines: ["› typing"] })
    screen.commit(["\x1b[1mbold\x1b[22m answer"])
    expect(written).toEqual(["\x1b[1mbold\x1b[22m answer\n"])
    expect(transcript).toEqual(["bold answer\n"])
  })

  it("writes no escape of a line's own: whatever reached a line, committed or live, is drawn as symbols, the palette's colours kept", async () => {
    const palette = await loadPalette(true)
    for (const interactive of [true, false]) {
      const { terminal, written, transcript } = fakeTerminal({ value: 300 }, interactive)
      const screen = new Screen(terminal)
      screen.commit([palette.yellow(`note ${hostile}`)], { lines: [`live ${hostile}`] })
      screen.live({ lines: [palette.dim(`title ${hostile}`), "› input"], cursor: { row: 1, column: 2 } })
      const output = written.join("")
      // The screen's own escapes: synchronised output, cursor moves and erasing, the cursor shown or hidden.
      const own = /\x1b\[\?(?:2026|25)[hl]|\x1b\[\d*[ACJ]|\r\n?/g
      expect(controlsIn(output.replace(own, ""))).toEqual([])
      expect(withoutColours(output)).toContain(`note ${hostileShown}`)
      if (interactive) expect(withoutColours(output)).toContain(`title ${hostileShown}`)
      expect(output).toContain(palette.yellow(`note ${hostileShown}`))
      expect(controlsIn(transcript.join(""))).toEqual([])
    }
  })
})
