/**
 * The local time's offset from UTC at an instant, for the system text's {{time}} and {{date}}.
 * In the compiled binary the first local-time call on a Date (getTimezoneOffset, getHours, ...)
 * initialises the engine's ICU time zones: 11–20 ms here, on the way of the first request (the
 * system text is composed before it). Under Bun on Linux and macOS the C library answers instead
 * (tzset and localtime_r through bun:ffi: ~2 ms with loading it, a few µs after); anywhere else
 * (vitest under Node, Windows), or when that fails, Date does.
 */
import { openLibc } from "../files/libc.ts"

type Offset = (now: Date) => number | undefined

/** struct tm on 64-bit glibc, musl and macOS: nine ints, padding, then long tm_gmtoff at byte 40. */
const gmtoffIndex = 5
const maxOffsetSeconds = 18 * 3600

const openClock = (): Offset | undefined => {
  const libc = openLibc({ tzset: { args: [], returns: "void" }, localtime_r: { args: ["ptr", "ptr"], returns: "ptr" } })
  if (libc === undefined) return undefined
  const seconds = new BigInt64Array(1)
  const tm = new BigInt64Array(8)
  return (now) => {
    seconds[0] = BigInt(Math.floor(now.getTime() / 1000))
    // tzset: TZ as the environment has it now, as Date would see it.
    libc.symbols.tzset()
    if (!libc.symbols.localtime_r(libc.ptr(seconds), libc.ptr(tm))) return undefined
    const offset = Number(tm[gmtoffIndex])
    return Number.isInteger(offset) && Math.abs(offset) <= maxOffsetSeconds ? offset / 60 : undefined
  }
}

let libc: Offset | undefined | null = null

/** Where the offset comes from in this process: "libc" (the fast path) or "date". */
export const localClockSource = (): "libc" | "date" => {
  if (libc === null) libc = openClock()
  return libc === undefined ? "date" : "libc"
}

/** Minutes east of UTC in the local time zone at `now` (Europe/Paris in winter: 60). */
export const localOffsetMinutes = (now: Date): number => {
  const fromLibc = localClockSource() === "libc" ? libc?.(now) : undefined
  return fromLibc ?? -now.getTimezoneOffset()
}

/** `now` moved by the local offset: its getUTC* fields are the local date and time. */
export const localFields = (now: Date): { readonly shifted: Date; readonly offsetMinutes: number } => {
  const offsetMinutes = localOffsetMinutes(now)
  return { shifted: new Date(now.getTime() + offsetMinutes * 60_000), offsetMinutes }
}
