/**
 * The search index's first-stage ranking (forward-index.ts `candidates`), the part that needs no
 * index internals: BM25 over the per-file term frequencies the index gathered, plus boosts for a
 * term in a declared name, the file name or a directory name, scaled by the share of the query
 * (by idf) a file matches; then the best `limit` files, kept in a min-heap.
 */

const K1 = 1.2
const B = 0.75
/** Extra weight (× idf) for a query term in a declared name, in the file name, in a directory name. */
const DEF_WEIGHT = 1.0
const BASENAME_WEIGHT = 2.5
const DIR_WEIGHT = 0.8

export const FLAG_DEF = 1
export const FLAG_DIR = 2
export const FLAG_BASE = 4

/** The files that match any query term: per file (row) and term (column), the weighted frequency and the FLAG_ bits. */
export interface Matches {
  /** The index's file ids, one per row. */
  readonly file: Int32Array
  readonly tf: Float64Array
  readonly flags: Uint8Array
  readonly count: number
  /** Per term: the number of matching files with the term in their contents. */
  readonly df: Float64Array
}

export interface QueryTerm {
  readonly stem: string
  readonly idf: number
}

/** Inverse document frequency of each term among `indexed` files. */
export const idfOf = (df: Float64Array, indexed: number): ReadonlyArray<number> => {
  const total = Math.max(1, indexed)
  return Array.from(df, (d) => Math.log(1 + (total - d + 0.5) / (d + 0.5)))
}

/** Each matching file's score; `docLength` gives a row's file length, `avgLength` the index's average. */
export const scoreMatches = (matches: Matches, terms: ReadonlyArray<QueryTerm>, docLength: (row: number) => number, avgLength: number): Float64Array => {
  const nq = terms.length
  const totalIdf = terms.reduce((sum, term) => sum + term.idf, 0)
  const scores = new Float64Array(matches.count)
  for (let c = 0; c < matches.count; c++) {
    const norm = K1 * (1 - B + (B * docLength(c)) / avgLength)
    let score = 0
    let matched = 0
    for (let qi = 0; qi < nq; qi++) {
      const w = terms[qi]!.idf
      const f = matches.tf[c * nq + qi]!
      const fl = matches.flags[c * nq + qi]!
      let hit = false
      if (f > 0) {
        score += (w * (f * (K1 + 1))) / (f + norm)
        if ((fl & FLAG_DEF) !== 0) score += DEF_WEIGHT * w
        hit = true
      }
      if ((fl & FLAG_BASE) !== 0) {
        score += BASENAME_WEIGHT * w
        hit = true
      } else if ((fl & FLAG_DIR) !== 0) {
        score += DIR_WEIGHT * w
        hit = true
      }
      if (hit) matched += w
    }
    // Files with more of the query (by idf) go first; BM25 alone lets one frequent term win.
    scores[c] = totalIdf > 0 ? score * (0.5 + (0.5 * matched) / totalIdf) : 0
  }
  return scores
}

/**
 * The rows of the best `limit` positive scores, best first; ties go to the shorter path, then
 * the smaller one (`relOf` gives a row's path).
 */
export const bestRows = (scores: Float64Array, limit: number, relOf: (row: number) => string): Array<number> => {
  const better = (a: number, b: number): boolean => {
    const d = scores[a]! - scores[b]!
    if (d !== 0) return d > 0
    const ra = relOf(a)
    const rb = relOf(b)
    return ra.length !== rb.length ? ra.length < rb.length : ra < rb
  }
  // A min-heap of rows: its root is the worst of the best so far.
  const heap: Array<number> = []
  const siftDown = (from: number): void => {
    let i = from
    for (;;) {
      const l = 2 * i + 1
      const r = l + 1
      let worst = i
      if (l < heap.length && better(heap[worst]!, heap[l]!)) worst = l
      if (r < heap.length && better(heap[worst]!, heap[r]!)) worst = r
      if (worst === i) return
      ;[heap[i], heap[worst]] = [heap[worst]!, heap[i]!]
      i = worst
    }
  }
  for (let c = 0; c < scores.length; c++) {
    if (!(scores[c]! > 0)) continue
    if (heap.length < limit) {
      heap.push(c)
      for (let i = heap.length - 1; i > 0; ) {
        const parent = (i - 1) >> 1
        if (!better(heap[parent]!, heap[i]!)) break
        ;[heap[i], heap[parent]] = [heap[parent]!, heap[i]!]
        i = parent
      }
    } else if (limit > 0 && better(c, heap[0]!)) {
      heap[0] = c
      siftDown(0)
    }
  }
  return heap.sort((a, b) => (better(a, b) ? -1 : better(b, a) ? 1 : 0))
}
