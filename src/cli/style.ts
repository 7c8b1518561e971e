/** ANSI styling that is off unless the stream is a terminal and NO_COLOR is unset. */
export interface Style {
  readonly dim: (text: string) => string
  readonly bold: (text: string) => string
  readonly red: (text: string) => string
  readonly green: (text: string) => string
  readonly yellow: (text: string) => string
  readonly cyan: (text: string) => string
}

const wrap = (open: number, close: number) => (text: string) => `\x1b[${open}m${text}\x1b[${close}m`
const plain = (text: string) => text

export const makeStyle = (enabled: boolean): Style =>
  enabled
    ? { dim: wrap(2, 22), bold: wrap(1, 22), red: wrap(31, 39), green: wrap(32, 39), yellow: wrap(33, 39), cyan: wrap(36, 39) }
    : { dim: plain, bold: plain, red: plain, green: plain, yellow: plain, cyan: plain }

export const colorWanted = (isTerminal: boolean, env: Readonly<Record<string, string | undefined>> = process.env): boolean =>
  isTerminal && (env["NO_COLOR"] === undefined || env["NO_COLOR"] === "") && env["TERM"] !== "dumb"
