/**
 * The colours of everything Crystal draws on a terminal, `crystal run`'s text renderer and the
 * interactive UI alike: picocolors, switched on or off once per run (NO_COLOR, TERM=dumb, not a
 * terminal). Only this file names picocolors.
 */
import type picocolors from "picocolors"

/** The styles Crystal uses. */
export type Palette = Pick<typeof picocolors, "isColorSupported" | "bold" | "dim" | "red" | "green" | "yellow" | "cyan" | "magenta">

export const colorWanted = (isTerminal: boolean, env: Readonly<Record<string, string | undefined>> = process.env): boolean =>
  isTerminal && (env["NO_COLOR"] === undefined || env["NO_COLOR"] === "") && env["TERM"] !== "dumb"

/** Every style leaves the text as it is (what picocolors gives with colour off), without loading picocolors. */
export const plainPalette: Palette = {
  isColorSupported: false,
  bold: String,
  dim: String,
  red: String,
  green: String,
  yellow: String,
  cyan: String,
  magenta: String
}

/**
 * picocolors works out a default of its own while it loads, and that reads process.stdout, which
 * the compiled binary takes ~15 ms to build (`crystal run` writes to the descriptors and never
 * builds it). Crystal always says itself whether colour is on, so that default is never used:
 * with "--color" on argv during the load, picocolors decides it without touching process.stdout.
 * The command line has been parsed by then; nothing else reads argv meanwhile.
 */
const loadPicocolors = async () => {
  process.argv.push("--color")
  try {
    return (await import("picocolors")).default
  } finally {
    const at = process.argv.lastIndexOf("--color")
    if (at >= 0) process.argv.splice(at, 1)
  }
}

/** The palette for a run; picocolors is loaded only when colour is on. */
export const loadPalette = async (enabled: boolean): Promise<Palette> => (enabled ? (await loadPicocolors()).createColors(true) : plainPalette)
