import { describe, expect, it } from "vitest"
import { colorWanted, loadPalette, plainPalette } from "../../../src/terminal/colors.ts"

describe("terminal colours", () => {
  it("are wanted on a terminal unless NO_COLOR is set or TERM is dumb", () => {
    expect(colorWanted(true, {})).toBe(true)
    expect(colorWanted(true, { NO_COLOR: "" })).toBe(true)
    expect(colorWanted(true, { NO_COLOR: "1" })).toBe(false)
    expect(colorWanted(true, { TERM: "dumb" })).toBe(false)
    expect(colorWanted(false, {})).toBe(false)
  })

  it("draw the same escapes crystal run wrote by hand before", async () => {
    const palette = await loadPalette(true)
    expect(palette.isColorSupported).toBe(true)
    expect(palette.dim("a")).toBe("\x1b[2ma\x1b[22m")
    expect(palette.bold("a")).toBe("\x1b[1ma\x1b[22m")
    expect(palette.red("a")).toBe("\x1b[31ma\x1b[39m")
    expect(palette.green("a")).toBe("\x1b[32ma\x1b[39m")
    expect(palette.yellow("a")).toBe("\x1b[33ma\x1b[39m")
    expect(palette.cyan("a")).toBe("\x1b[36ma\x1b[39m")
  })

  it("leave the text alone when off, and loading them leaves the command line as it was", async () => {
    const argv = [...process.argv]
    const off = await loadPalette(false)
    await loadPalette(true)
    expect(process.argv).toEqual(argv)
    expect(off).toBe(plainPalette)
    expect(off.isColorSupported).toBe(false)
    for (const style of [off.dim, off.bold, off.red, off.green, off.yellow, off.cyan, off.magenta]) expect(style("a\x1b[1m")).toBe("a\x1b[1m")
  })
})
