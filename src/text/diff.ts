/** Line diffs for showing edits: a longest-common-subsequence diff with a little context around changes. */

export type DiffLine = { readonly kind: " " | "-" | "+"; readonly text: string }

/** Above this many cell comparisons the diff is shown as all removed then all added (still correct, less tidy). */
const maxCells = 250_000

export const diffLines = (before: string, after: string): Array<DiffLine> => {
  const a = before.split("\n")
  const b = after.split("\n")
  // Common head and tail are cheap and make the table small.
  let head = 0
  while (head < a.length && head < b.length && a[head] === b[head]) head++
  let tail = 0
  while (tail < a.length - head && tail < b.length - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++
  const midA = a.slice(head, a.length - tail)
  const midB = b.slice(head, b.length - tail)
  const middle: Array<DiffLine> = []
  if (midA.length * midB.length > maxCells) {
    middle.push(...midA.map((text) => ({ kind: "-" as const, text })), ...midB.map((text) => ({ kind: "+" as const, text })))
  } else {
    const n = midA.length
    const m = midB.length
    const table = Array.from({ length: n + 1 }, () => new Uint32Array(m + 1))
    for (let i = n - 1; i >= 0; i--) {
      const row = table[i] as Uint32Array
      const below = table[i + 1] as Uint32Array
      for (let j = m - 1; j >= 0; j--) {
        row[j] = midA[i] === midB[j] ? (below[j + 1] ?? 0) + 1 : Math.max(below[j] ?? 0, row[j + 1] ?? 0)
      }
    }
    let i = 0
    let j = 0
    while (i < n || j < m) {
      if (i < n && j < m && midA[i] === midB[j]) {
        middle.push({ kind: " ", text: midA[i] as string })
        i++
        j++
      } else if (i < n && (j >= m || (table[i + 1]?.[j] ?? 0) >= (table[i]?.[j + 1] ?? 0))) {
        middle.push({ kind: "-", text: midA[i] as string })
        i++
      } else {
        middle.push({ kind: "+", text: midB[j] as string })
        j++
      }
    }
  }
  return [
    ...a.slice(0, head).map((text) => ({ kind: " " as const, text })),
    ...middle,
    ...a.slice(a.length - tail).map((text) => ({ kind: " " as const, text }))
  ]
}

/** Keeps changed lines and `context` unchanged lines around them; a gap becomes one "…" context line. */
export const withContext = (lines: ReadonlyArray<DiffLine>, context = 2): Array<DiffLine> => {
  const keep = lines.map(() => false)
  lines.forEach((line, index) => {
    if (line.kind === " ") return
    for (let k = Math.max(0, index - context); k <= Math.min(lines.length - 1, index + context); k++) keep[k] = true
  })
  const out: Array<DiffLine> = []
  let skipped = false
  lines.forEach((line, index) => {
    if (keep[index]) {
      if (skipped && out.length > 0) out.push({ kind: " ", text: "…" })
      skipped = false
      out.push(line)
    } else skipped = true
  })
  return out
}
