import { plural } from "./plural.ts"

const units = ["KiB", "MiB", "GiB", "TiB"] as const

/**
 * A size for people, in binary units with at most one decimal: "512 bytes", "1.5 KiB", "1 MiB",
 * "20 MiB". The one convention of every size Crystal prints or tells the model.
 */
export const formatBytes = (bytes: number): string => {
  if (Math.abs(bytes) < 1024) return plural(bytes, "byte")
  let value = bytes / 1024
  let unit = 0
  // Scale on the rounded value, so that 1048575 bytes reads "1 MiB", never "1024 KiB".
  while (Math.abs(Number(value.toFixed(1))) >= 1024 && unit < units.length - 1) {
    value /= 1024
    unit++
  }
  return `${value.toFixed(1).replace(/\.0$/, "")} ${units[unit]}`
}

/**
 * A size and the limit it is over, both for people; in exact bytes when they would print alike
 * ("32 MiB" over "32 MiB" says nothing).
 */
export const formatSizeOverLimit = (bytes: number, limit: number): { readonly size: string; readonly limit: string } =>
  formatBytes(bytes) === formatBytes(limit) ? { size: `${bytes} bytes`, limit: `${limit} bytes` } : { size: formatBytes(bytes), limit: formatBytes(limit) }
