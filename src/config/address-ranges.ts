/**
 * IP addresses and CIDR ranges, parsed by hand into 128-bit numbers (IPv4 as its IPv4-mapped IPv6
 * form), so one comparison covers both families and `::ffff:127.0.0.1` is the loopback it is.
 * web_fetch refuses the private ranges below unless config.json's `webFetch.allowPrivate` lists
 * the host or a range holding the address; config.json's check of that list lives here too.
 */
export interface AddressRange {
  readonly base: bigint
  readonly bits: number
}

const mappedPrefix = 0xffffn << 32n

// Checked by hand rather than with node:net's isIP: config.json's schema imports this module, and
// node:net is not otherwise loaded before the first request.
const ipv4Pattern = /^((25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)\.){3}(25[0-5]|2[0-4]\d|1\d\d|[1-9]?\d)$/
const hexGroup = /^[0-9a-f]{1,4}$/i

const parseIPv4 = (text: string): bigint | undefined => {
  if (!ipv4Pattern.test(text)) return undefined
  return text.split(".").reduce((value, part) => (value << 8n) | BigInt(Number(part)), 0n)
}

const parseIPv6 = (text: string): bigint | undefined => {
  const [address = "", zone, extra] = text.split("%")
  if (!address.includes(":") || extra !== undefined || zone === "") return undefined
  let body = address
  // A trailing dotted IPv4 part ("::ffff:1.2.3.4") becomes the two groups it stands for.
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(body)?.[1]
  if (tail !== undefined) {
    const v4 = parseIPv4(tail)
    if (v4 === undefined || !body.slice(0, -tail.length).endsWith(":")) return undefined
    body = `${body.slice(0, -tail.length)}${(v4 >> 16n).toString(16)}:${(v4 & 0xffffn).toString(16)}`
  }
  const halves = body.split("::")
  if (halves.length > 2) return undefined
  const [head = "", rest] = halves
  const groups = (part: string): Array<string> => (part === "" ? [] : part.split(":"))
  const before = groups(head)
  const after = rest === undefined ? [] : groups(rest)
  const fill = rest === undefined ? [] : Array.from({ length: 8 - before.length - after.length }, () => "0")
  const all = [...before, ...fill, ...after]
  if (all.length !== 8 || (rest !== undefined && fill.length === 0) || !all.every((group) => hexGroup.test(group))) return undefined
  return all.reduce((value, group) => (value << 16n) | BigInt(parseInt(group, 16)), 0n)
}

/** An address as a 128-bit number (IPv4 mapped into IPv6), or undefined when `text` is no IP address; IPv6 may come in brackets. */
export const parseAddress = (text: string): bigint | undefined => {
  const bare = text.startsWith("[") && text.endsWith("]") ? text.slice(1, -1) : text
  const v4 = parseIPv4(bare)
  return v4 === undefined ? parseIPv6(bare) : mappedPrefix | v4
}

/** "10.0.0.0/8", "fc00::/7" or a single address; undefined when it is neither. */
export const parseRange = (text: string): AddressRange | undefined => {
  const [address = "", length, extra] = text.split("/")
  if (extra !== undefined) return undefined
  const base = parseAddress(address)
  if (base === undefined) return undefined
  const v4 = parseIPv4(address) !== undefined
  const max = v4 ? 32 : 128
  const bits = length === undefined ? max : /^\d{1,3}$/.test(length) ? Number(length) : NaN
  if (!(bits >= 0 && bits <= max)) return undefined
  return { base, bits: v4 ? bits + 96 : bits }
}

export const inRange = (address: bigint, range: AddressRange): boolean => {
  const shift = BigInt(128 - range.bits)
  return address >> shift === range.base >> shift
}

const range = (text: string): AddressRange => parseRange(text) as AddressRange

/** The ranges web_fetch refuses, each with the word its refusal uses. */
const privateRangeTable = (): ReadonlyArray<readonly [AddressRange, string]> => [
  [range("0.0.0.0/8"), "unspecified (it reaches this machine)"],
  [range("127.0.0.0/8"), "loopback"],
  [range("10.0.0.0/8"), "private"],
  [range("172.16.0.0/12"), "private"],
  [range("192.168.0.0/16"), "private"],
  [range("100.64.0.0/10"), "shared (carrier-grade NAT; cloud metadata lives here too)"],
  [range("169.254.0.0/16"), "link-local (cloud metadata)"],
  [range("224.0.0.0/4"), "multicast"],
  [range("240.0.0.0/4"), "reserved"],
  [range("::/128"), "unspecified (it reaches this machine)"],
  [range("::1/128"), "loopback"],
  [range("fc00::/7"), "unique-local (private)"],
  [range("fe80::/10"), "link-local"],
  [range("ff00::/8"), "multicast"]
]

/** IPv6 forms that carry an IPv4 address in their last 32 bits (NAT64, the deprecated IPv4-compatible form). */
const embeddingRangeTable = (): ReadonlyArray<AddressRange> => [range("64:ff9b::/96"), range("::/96")]

// Built on the first check, not when config.json's schema loads this module at start-up.
let tables: { readonly ranges: ReadonlyArray<readonly [AddressRange, string]>; readonly embedding: ReadonlyArray<AddressRange> } | undefined

/** Why `address` is not a public one ("loopback", "private", …), or undefined when it is public. */
export const privateKind = (address: bigint): string | undefined => {
  tables ??= { ranges: privateRangeTable(), embedding: embeddingRangeTable() }
  const { ranges: privateRanges, embedding: embeddingRanges } = tables
  const embedded = embeddingRanges.some((r) => inRange(address, r)) && address > 1n ? mappedPrefix | (address & 0xffffffffn) : address
  return privateRanges.find(([r]) => inRange(embedded, r) || inRange(address, r))?.[1]
}

/** The problem with one `webFetch.allowPrivate` entry (a host name, an IP address or a CIDR range), or undefined when it is fine. */
export const allowEntryProblem = (entry: string): string | undefined => {
  if (entry.includes("/") || parseAddress(entry) !== undefined) {
    return parseRange(entry) === undefined ? `${JSON.stringify(entry)} is not an IP address or CIDR range (e.g. "127.0.0.1", "10.0.0.0/8", "fd00::/8")` : undefined
  }
  return /^[a-z0-9]([a-z0-9-]*[a-z0-9])?(\.[a-z0-9]([a-z0-9-]*[a-z0-9])?)*\.?$/i.test(entry)
    ? undefined
    : `${JSON.stringify(entry)} is not a host name, IP address or CIDR range (e.g. "intranet.example", "127.0.0.1", "10.0.0.0/8")`
}
