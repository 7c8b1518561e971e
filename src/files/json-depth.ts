/**
 * Nesting depth of JSON, measured without recursion: JSON.parse accepts text 50,000 levels deep,
 * but every recursive walk after it (JSON.stringify, schema decoding, rendering) overflows the
 * stack on it. Whatever reads JSON it did not write checks the depth first.
 */

/** True when the brackets of a JSON text (outside strings) nest deeper than `limit`. */
export const jsonTextTooDeep = (text: string, limit: number): boolean => {
  let depth = 0
  let inString = false
  for (let index = 0; index < text.length; index++) {
    const char = text.charCodeAt(index)
    if (inString) {
      if (char === 0x5c) index++ // backslash: skip the escaped character
      else if (char === 0x22) inString = false
    } else if (char === 0x22) inString = true
    else if (char === 0x5b || char === 0x7b) {
      if (++depth > limit) return true
    } else if (char === 0x5d || char === 0x7d) depth--
  }
  return false
}

/** True when a parsed value nests deeper than `limit` (arrays and objects count one level each). */
export const valueTooDeep = (value: unknown, limit: number): boolean => {
  const pending: Array<readonly [unknown, number]> = [[value, 1]]
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [current, depth] = next
    if (typeof current !== "object" || current === null) continue
    if (depth > limit) return true
    for (const child of Array.isArray(current) ? current : Object.values(current)) pending.push([child, depth + 1])
  }
  return false
}
