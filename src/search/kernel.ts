/**
 * The hot loop of the search index: reads a file, decides whether it is text, and turns its bytes
 * into (stem, frequency) pairs. It runs on the main thread and, for a cold build of a large tree
 * on a machine with cores to spare, in worker threads started from its source text
 * (`searchWorkerSource`), so `searchKernel` must be self-contained: it may use its parameters and
 * JavaScript built-ins only, never a binding from this module or an import.
 *
 * Tokens: an identifier is a run of ASCII letters, digits, `_`, `$` and non-ASCII characters; it is
 * split into subwords at `_`/`$`, at lower→upper case changes (`parseRetry` → parse, retry), before
 * the last capital of a capital run followed by a lower-case letter (`HTTPServer` → http, server)
 * and between letters and digits (`utf8` → utf, 8, plus utf8 itself). Subwords are lower-cased
 * (ASCII only) and kept when 2–40 bytes long, not a number of more than 6 digits, and not a stop
 * word; each is then stemmed (`stem`). Identifiers over 64 bytes (hashes, base64) are skipped.
 * Each distinct identifier is split once: later occurrences are found by a hash of their bytes,
 * first in a small direct-mapped cache, then in an open-addressing table, so the cost per
 * occurrence is one hash and one probe. Queries, paths and snippet lines are split by the same
 * code (`splitWords`), so they always agree with the index.
 *
 * Definitions: the subwords of an identifier that directly follows a declaration keyword
 * (`function`, `class`, `def`, `const`, ...; only spaces, tabs and `*` in between) are flagged.
 *
 * Text or binary: as the built-in grep (a NUL byte makes a file binary; a UTF-16 byte-order mark
 * is decoded) and sniffContent's control-character rule over the first 8 KB.
 */

export interface SearchKernelConfig {
  readonly stopWords: ReadonlyArray<string>
  readonly declKeywords: ReadonlyArray<string>
  /** Files larger than this are not read. */
  readonly maxFileBytes: number
}

/** What `indexFile` found. */
export const FILE_INDEXED = 0
export const FILE_TOO_BIG = 1
export const FILE_BINARY = 2
export const FILE_UNREADABLE = 3

/** The definition flag of an entry's `tf` word; the frequency is in the bits below it. */
export const DEF_FLAG = 1 << 24
export const TF_MASK = DEF_FLAG - 1

/** The minimal slice of node:fs the kernel uses (passed in so that the worker source needs no import). */
export interface KernelFs {
  openSync(path: string, flags: string): number
  fstatSync(fd: number): { isFile(): boolean; size: number; mtimeMs: number }
  readSync(fd: number, buffer: Uint8Array, offset: number, length: number, position: number | null): number
  closeSync(fd: number): void
}

export interface SearchKernel {
  /**
   * Reads and tokenizes one file. For FILE_INDEXED, `terms`/`tfs` hold `count` entries (local
   * stem ids, each once, and their frequency with DEF_FLAG), `docLength` the number of tokens.
   */
  indexFile(file: string): { status: number; size: number; mtimeMs: number; count: number; docLength: number }
  /** Tokenizes text already in memory (UTF-8 bytes), as indexFile does with a file's bytes. */
  indexBytes(bytes: Uint8Array, length: number): { count: number; docLength: number }
  readonly terms: () => Int32Array
  readonly tfs: () => Int32Array
  /**
   * The stems given local ids since the previous call, in id order (the first has id
   * `firstNew`). The entries of indexFile/indexBytes are stem ids: each stem once per file.
   */
  takeNewStems(): { firstNew: number; stems: Array<string> }
  /** The kept subwords of `text`, in order, lower-cased (what indexing would count). */
  splitWords(text: string): Array<string>
  /** The stemmer used for every term (see `stem` in search/tokenize.ts). */
  stem(word: string): string
  /** Whether bytes are text (the rule of the built-in grep and sniffContent: no NUL, few control characters). */
  isText(bytes: Uint8Array, length: number): boolean
}

/**
 * `expectedFiles`: how many files this kernel is about to index (a cold build), to size its tables
 * once rather than rehash them as they fill.
 */
// eslint-disable-next-line max-lines-per-function -- the worker's source is this one function's text (searchWorkerSource), so it cannot call helpers outside it
export function searchKernel(config: SearchKernelConfig, fs: KernelFs, expectedFiles = 0): SearchKernel {
  const SEP = 0
  const LOWER = 1
  const UPPER = 2
  const DIGIT = 3
  const HIGH = 4
  const JOIN = 5
  const MAX_IDENT = 64
  const MIN_TERM = 2
  const MAX_TERM = 40
  const MAX_DIGITS = 6
  const DEF = 1 << 24
  const SNIFF = 8192
  /** A table of at least `want` slots (a power of two), between `min` and 1M. */
  const tableSize = (want: number, min: number): number => {
    let size = min
    while (size < want && size < 1 << 20) size *= 2
    return size
  }

  const stop = new Set(config.stopWords)
  const decl = new Set(config.declKeywords)
  const CLS = new Uint8Array(256)
  const LOW = new Uint8Array(256)
  const CONTROL = new Uint8Array(256)
  for (let c = 0; c < 256; c++) {
    CLS[c] =
      c >= 97 && c <= 122 ? LOWER : c >= 65 && c <= 90 ? UPPER : c >= 48 && c <= 57 ? DIGIT : c >= 128 ? HIGH : c === 95 || c === 36 ? JOIN : SEP
    LOW[c] = c >= 65 && c <= 90 ? c + 32 : c
    // Control characters other than tab, newline, vertical tab, form feed, carriage return, backspace, escape.
    CONTROL[c] = c < 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0b && c !== 0x0c && c !== 0x0d && c !== 0x08 && c !== 0x1b ? 1 : 0
  }
  const latin1 = new TextDecoder("latin1")
  const utf8 = new TextDecoder("utf-8")

  // ---- stems ---------------------------------------------------------------------------------------
  const isDoubleConsonant = (word: string): boolean => {
    const n = word.length
    if (n < 2) return false
    const last = word.charCodeAt(n - 1)
    // l, s, z and vowels stay doubled ("call", "class", "free").
    return last === word.charCodeAt(n - 2) && "lszaeiou".indexOf(word[n - 1]!) === -1
  }

  const LETTERS = /^[a-z]+$/
  const stem = (word: string): string => {
    if (word.length <= 3 || !LETTERS.test(word)) return word
    let w = word
    if (w.endsWith("ies") && w.length > 4) w = `${w.slice(0, -3)}y`
    else if (w.endsWith("sses")) w = w.slice(0, -2)
    else if (w.endsWith("s") && !w.endsWith("ss") && !w.endsWith("us") && !w.endsWith("is")) w = w.slice(0, -1)
    let stripped = false
    if (w.endsWith("ied") && w.length > 4) w = `${w.slice(0, -3)}y`
    else if (w.endsWith("ing") && w.length >= 6) {
      w = w.slice(0, -3)
      stripped = true
    } else if (w.endsWith("ed") && w.length >= 5) {
      w = w.slice(0, -2)
      stripped = true
    } else if (w.endsWith("er") && w.length >= 5) {
      w = w.slice(0, -2)
      stripped = true
    }
    if (stripped && isDoubleConsonant(w)) w = w.slice(0, -1)
    if (w.endsWith("e") && w.length >= 4) w = w.slice(0, -1)
    return w
  }

  const stemIds = new Map<string, number>()
  const stemList: Array<string> = []
  let stemsTaken = 0
  // Per stem: the file stamp it was last counted in, and its entry in that file's output.
  let stemState = new Int32Array(2048)

  const stemIdOf = (word: string): number => {
    const s = stem(word)
    let id = stemIds.get(s)
    if (id === undefined) {
      id = stemList.length
      stemIds.set(s, id)
      stemList.push(s)
      if (id * 2 >= stemState.length) {
        const grown = new Int32Array(stemState.length * 2)
        grown.set(stemState)
        stemState = grown
      }
    }
    return id
  }

  // ---- terms: lower-cased subwords, interned by a hash of their bytes ------------------------------
  // Open addressing, four ints per slot: [hash 1, hash 2, byte length + 1, term id (-1: not kept)].
  // A large tree (25k files of node_modules) has ≈ 4 distinct words and 9 distinct identifiers per
  // file; tables stay at most half full.
  let termCap = tableSize(expectedFiles * 8, 1 << 12)
  let termTable = new Int32Array(termCap * 4)
  let termN = 0
  const termList: Array<string> = []
  /** Per term, its stem id. */
  let termStem = new Int32Array(2048)
  const lowered = new Uint8Array(MAX_TERM)

  const growTerms = (): void => {
    const cap = termCap * 2
    const wrap = cap * 4 - 1
    const grown = new Int32Array(cap * 4)
    for (let j = 0; j < termCap * 4; j += 4) {
      if (termTable[j + 2] === 0) continue
      let k = (termTable[j]! & (cap - 1)) << 2
      while (grown[k + 2] !== 0) k = (k + 4) & wrap
      grown[k] = termTable[j]!
      grown[k + 1] = termTable[j + 1]!
      grown[k + 2] = termTable[j + 2]!
      grown[k + 3] = termTable[j + 3]!
    }
    termTable = grown
    termCap = cap
  }

  /** The term id of bytes[a, b) (a subword), or -1 when it is not kept. */
  const termOf = (bytes: Uint8Array, a: number, b: number): number => {
    const len = b - a
    if (len < MIN_TERM || len > MAX_TERM) return -1
    let digits = true
    let h1 = -2128831035
    let h2 = 5381
    for (let x = a; x < b; x++) {
      const c = LOW[bytes[x]!]!
      if (c < 48 || c > 57) digits = false
      h1 = Math.imul(h1 ^ c, 16777619)
      h2 = (Math.imul(h2, 33) + c) | 0
    }
    if (digits && len > MAX_DIGITS) return -1
    const wrap = termCap * 4 - 1
    let j = (h1 & (termCap - 1)) << 2
    for (;;) {
      const info = termTable[j + 2]!
      if (info === 0) break
      if (info === len + 1 && termTable[j] === h1 && termTable[j + 1] === h2) return termTable[j + 3]!
      j = (j + 4) & wrap
    }
    let ascii = true
    for (let x = 0; x < len; x++) {
      const c = LOW[bytes[a + x]!]!
      lowered[x] = c
      if (c >= 128) ascii = false
    }
    const text = (ascii ? latin1 : utf8).decode(lowered.subarray(0, len))
    let id = -1
    if (!stop.has(text)) {
      id = termList.length
      termList.push(text)
      if (id >= termStem.length) {
        const grown = new Int32Array(termStem.length * 2)
        grown.set(termStem)
        termStem = grown
      }
      termStem[id] = stemIdOf(text)
    }
    termTable[j] = h1
    termTable[j + 1] = h2
    termTable[j + 2] = len + 1
    termTable[j + 3] = id
    if (++termN * 2 > termCap) growTerms()
    return id
  }

  /** Calls `emit` with the kept term ids of the identifier bytes[s, e), in order. */
  /**
   * Calls `emit` with the kept term ids of the identifier bytes[s, e), in order. A number right
   * after letters also gives the two together ("matrix4" → matrix, matrix4; "utf8Decode" → utf,
   * utf8, decode), so that names with digits can be told apart.
   */
  const splitIdent = (bytes: Uint8Array, s: number, e: number, emit: (term: number) => void): void => {
    let start = -1
    // The previous subword when it was letters and ended where the current one starts.
    let lettersFrom = -1
    let lettersTo = -1
    const flush = (a: number, b: number): void => {
      const t = termOf(bytes, a, b)
      if (t >= 0) emit(t)
      if (CLS[bytes[a]!] === DIGIT) {
        if (lettersTo === a) {
          const joined = termOf(bytes, lettersFrom, b)
          if (joined >= 0) emit(joined)
        }
        lettersTo = -1
      } else {
        lettersFrom = a
        lettersTo = b
      }
    }
    for (let i = s; i < e; i++) {
      const cls = CLS[bytes[i]!]!
      if (cls === JOIN) {
        if (start >= 0) flush(start, i)
        start = -1
        lettersTo = -1
        continue
      }
      if (start < 0) {
        start = i
        continue
      }
      const prev = CLS[bytes[i - 1]!]!
      let boundary = false
      if (cls === UPPER) {
        if (prev === LOWER || prev === HIGH || prev === DIGIT) boundary = true
        else if (prev === UPPER && i + 1 < e && CLS[bytes[i + 1]!] === LOWER) boundary = true
      } else if (cls === DIGIT) {
        boundary = prev !== DIGIT
      } else if (prev === DIGIT) {
        boundary = true
      }
      if (boundary) {
        flush(start, i)
        start = i
      }
    }
    if (start >= 0) flush(start, e)
  }

  // ---- identifiers: hash of raw bytes → their term ids ----------------------------------------------
  // Open addressing, four ints per slot so that a probe touches one cache line:
  // [hash 1, hash 2, length | term count << 8 | declaration keyword << 16 | used << 24, pool start].
  let identCap = tableSize(expectedFiles * 16, 1 << 14)
  let table = new Int32Array(identCap * 4)
  let identN = 0
  // ≈ 2 stems per identifier.
  let pool = new Int32Array(tableSize(expectedFiles * 24, 1 << 14))
  let poolN = 0
  const RECENT_MASK = 16383
  const recent = new Int32Array((RECENT_MASK + 1) * 4)

  const growIdents = (): void => {
    const cap = identCap * 4
    const wrap = cap * 4 - 1
    const grown = new Int32Array(cap * 4)
    for (let j = 0; j < identCap * 4; j += 4) {
      if (table[j + 2] === 0) continue
      let k = (table[j]! & (cap - 1)) << 2
      while (grown[k + 2] !== 0) k = (k + 4) & wrap
      grown[k] = table[j]!
      grown[k + 1] = table[j + 1]!
      grown[k + 2] = table[j + 2]!
      grown[k + 3] = table[j + 3]!
    }
    table = grown
    identCap = cap
    recent.fill(0)
  }

  /** Appends a term's stem to the pool, unless the identifier already has it ("parseParsers"). */
  let poolFrom = 0
  const toPool = (term: number): void => {
    const s = termStem[term]!
    for (let x = poolFrom; x < poolN; x++) if (pool[x] === s) return
    if (poolN === pool.length) {
      const grown = new Int32Array(pool.length * 2)
      grown.set(pool)
      pool = grown
    }
    pool[poolN++] = s
  }

  const declBytes = [...decl].map((word) => Array.from(word, (ch) => ch.charCodeAt(0)))
  const isDeclKeyword = (bytes: Uint8Array, s: number, e: number): boolean => {
    const len = e - s
    for (const word of declBytes) {
      if (word.length !== len) continue
      let same = true
      for (let x = 0; x < len && same; x++) same = bytes[s + x] === word[x]
      if (same) return true
    }
    return false
  }

  /** Adds the identifier bytes[s, e) at free slot `j` of `table`; gives its info word. */
  const addIdent = (bytes: Uint8Array, s: number, e: number, h1: number, h2: number, j: number): number => {
    const from = poolN
    poolFrom = from
    splitIdent(bytes, s, e, toPool)
    const count = Math.min(poolN - from, 255)
    poolN = from + count
    const info = (e - s) | (count << 8) | ((isDeclKeyword(bytes, s, e) ? 1 : 0) << 16) | (1 << 24)
    table[j] = h1
    table[j + 1] = h2
    table[j + 2] = info
    table[j + 3] = from
    if (++identN * 2 > identCap) growIdents()
    return info
  }

  // ---- per-file output ---------------------------------------------------------------------------
  let outTerms = new Int32Array(4096)
  let outTfs = new Int32Array(4096)
  let fileStamp = 0

  const indexBytes = (bytes: Uint8Array, n: number): { count: number; docLength: number } => {
    const stamp = ++fileStamp
    // Locals rather than the closure's variables in the loop (re-read after anything may grow them).
    const cls = CLS
    const cache = recent
    let tbl = table
    let pl = pool
    let state = stemState
    let terms = outTerms
    let tfs = outTfs
    let count = 0
    let docLength = 0
    let prevDecl = false
    let i = 0
    while (i < n) {
      let c = bytes[i]!
      if (cls[c] === SEP) {
        if (c !== 32 && c !== 9 && c !== 42) prevDecl = false
        i++
        continue
      }
      const s = i
      let h1 = -2128831035
      let h2 = 5381
      do {
        h1 = Math.imul(h1 ^ c, 16777619)
        h2 = (Math.imul(h2, 33) + c) | 0
        i++
        if (i >= n) break
        c = bytes[i]!
      } while (cls[c] !== SEP)
      const len = i - s
      if (len > MAX_IDENT) {
        prevDecl = false
        continue
      }
      // A small direct-mapped cache of recent identifiers first (it stays in the CPU cache).
      const rc = (h1 & RECENT_MASK) << 2
      let info = cache[rc + 2]!
      let p = 0
      if (info !== 0 && cache[rc] === h1 && cache[rc + 1] === h2 && (info & 0xff) === len) {
        p = cache[rc + 3]!
      } else {
        const wrap = identCap * 4 - 1
        let j = (h1 & (identCap - 1)) << 2
        for (;;) {
          info = tbl[j + 2]!
          if (info === 0) break
          if (tbl[j] === h1 && tbl[j + 1] === h2 && (info & 0xff) === len) break
          j = (j + 4) & wrap
        }
        if (info === 0) {
          p = poolN
          info = addIdent(bytes, s, i, h1, h2, j)
          tbl = table
          pl = pool
          state = stemState
        } else p = tbl[j + 3]!
        cache[rc] = h1
        cache[rc + 1] = h2
        cache[rc + 2] = info
        cache[rc + 3] = p
      }
      const k = (info >>> 8) & 0xff
      if (k > 0) {
        const def = prevDecl ? DEF : 0
        for (let x = 0; x < k; x++) {
          const t2 = pl[p + x]! << 1
          if (state[t2] !== stamp) {
            state[t2] = stamp
            if (count === terms.length) {
              outTerms = new Int32Array(count * 2)
              outTerms.set(terms)
              terms = outTerms
              outTfs = new Int32Array(count * 2)
              outTfs.set(tfs)
              tfs = outTfs
            }
            state[t2 + 1] = count
            terms[count] = t2 >> 1
            tfs[count] = 1 | def
            count++
          } else {
            const slot = state[t2 + 1]!
            tfs[slot] = (tfs[slot]! + 1) | def
          }
        }
        docLength += k
      }
      prevDecl = ((info >>> 16) & 1) === 1
    }
    return { count, docLength }
  }

  // ---- text ----------------------------------------------------------------------------------------
  let textBytes = new Uint8Array(1024)
  const encoder = new TextEncoder()

  const splitWords = (text: string): Array<string> => {
    if (textBytes.length < text.length * 3) textBytes = new Uint8Array(text.length * 3)
    const n = encoder.encodeInto(text, textBytes).written
    const bytes = textBytes
    const out: Array<string> = []
    const emit = (term: number): void => {
      out.push(termList[term]!)
    }
    let i = 0
    while (i < n) {
      if (CLS[bytes[i]!] === SEP) {
        i++
        continue
      }
      const s = i
      while (i < n && CLS[bytes[i]!] !== SEP) i++
      if (i - s <= MAX_IDENT) splitIdent(bytes, s, i, emit)
    }
    return out
  }

  const isText = (bytes: Uint8Array, n: number): boolean => {
    const view = n === bytes.length ? bytes : bytes.subarray(0, n)
    if (view.indexOf(0) !== -1) return false
    const head = Math.min(n, SNIFF)
    let control = 0
    for (let i = 0; i < head; i++) control += CONTROL[view[i]!]!
    return !(head > 0 && control / head > 0.1)
  }

  let buffer = new Uint8Array(1 << 16)

  /** Reads a file into `buffer` (status 0: `n` bytes), or says why not (too big, unreadable). */
  const readFile = (file: string): { status: number; size: number; mtimeMs: number; n: number } => {
    let fd: number
    try {
      fd = fs.openSync(file, "r")
    } catch {
      return { status: 3, size: 0, mtimeMs: 0, n: 0 }
    }
    let size = 0
    let mtimeMs = 0
    let n = 0
    try {
      const stat = fs.fstatSync(fd)
      size = stat.size
      mtimeMs = stat.mtimeMs
      if (!stat.isFile()) return { status: 3, size, mtimeMs, n: 0 }
      if (size > config.maxFileBytes) return { status: 1, size, mtimeMs, n: 0 }
      if (buffer.length < size + 1) buffer = new Uint8Array(Math.max(size + 1, buffer.length * 2))
      for (;;) {
        const got = fs.readSync(fd, buffer, n, buffer.length - n, n)
        if (got === 0) break
        n += got
        // A short read at or past the size fstat gave is the end: no extra read to see 0 bytes.
        if (n >= size && n < buffer.length) break
        if (n === buffer.length) {
          if (n > config.maxFileBytes) return { status: 1, size: n, mtimeMs, n: 0 }
          const grown = new Uint8Array(buffer.length * 2)
          grown.set(buffer)
          buffer = grown
        }
      }
    } catch {
      return { status: 3, size, mtimeMs, n: 0 }
    } finally {
      try {
        fs.closeSync(fd)
      } catch {
        // already closed
      }
    }
    return { status: 0, size, mtimeMs, n }
  }

  /** Indexes a file's bytes as read: status 0, or 2 for binary content. */
  const indexContent = (content: Uint8Array, length: number): { status: number; count: number; docLength: number } => {
    let bytes = content
    let n = length
    // A byte-order mark selects UTF-16 (as grep does): index its UTF-8 form.
    if (n >= 2 && ((bytes[0] === 0xff && bytes[1] === 0xfe) || (bytes[0] === 0xfe && bytes[1] === 0xff))) {
      const text = new TextDecoder(bytes[0] === 0xff ? "utf-16le" : "utf-16be").decode(bytes.subarray(0, n))
      if (text.includes("\0")) return { status: 2, count: 0, docLength: 0 }
      bytes = encoder.encode(text)
      n = bytes.length
    } else if (!isText(bytes, n)) {
      return { status: 2, count: 0, docLength: 0 }
    }
    const { count, docLength } = indexBytes(bytes, n)
    return { status: 0, count, docLength }
  }

  const indexFile = (file: string): { status: number; size: number; mtimeMs: number; count: number; docLength: number } => {
    const read = readFile(file)
    if (read.status !== 0) return { status: read.status, size: read.size, mtimeMs: read.mtimeMs, count: 0, docLength: 0 }
    const { status, count, docLength } = indexContent(buffer, read.n)
    return { status, size: read.size, mtimeMs: read.mtimeMs, count, docLength }
  }

  const takeNewStems = (): { firstNew: number; stems: Array<string> } => {
    const firstNew = stemsTaken
    stemsTaken = stemList.length
    return { firstNew, stems: stemList.slice(firstNew) }
  }

  return {
    indexFile,
    indexBytes,
    terms: () => outTerms,
    tfs: () => outTfs,
    takeNewStems,
    splitWords,
    isText,
    stem
  }
}

/**
 * The source of a worker that indexes batches of files with its own kernel. Messages in:
 * `{ id, files }` (absolute paths, each ended by a NUL). Messages out: `{ id, meta, terms, tfs, newStems,
 * firstNew }` where `meta` holds five numbers per file (status, size, mtimeMs, count, docLength)
 * and `terms`/`tfs` the files' entries one after another (local stem ids of this worker).
 */
export const searchWorkerSource = (): string =>
  [
    // Transpilers may wrap functions in a `__name` helper; the worker has none of them.
    "var __name = (target) => target;",
    'const { parentPort, workerData } = require("node:worker_threads");',
    'const fs = require("node:fs");',
    `const kernel = (${searchKernel.toString()})(workerData, fs);`,
    "parentPort.on('message', (message) => {",
    "  const files = message.files.split('\\0'); files.pop();",
    "  const meta = new Float64Array(files.length * 5);",
    "  let terms = new Int32Array(1 << 16), tfs = new Int32Array(1 << 16), used = 0;",
    "  files.forEach((file, i) => {",
    "    const r = kernel.indexFile(file);",
    "    meta[i * 5] = r.status; meta[i * 5 + 1] = r.size; meta[i * 5 + 2] = r.mtimeMs; meta[i * 5 + 3] = r.count; meta[i * 5 + 4] = r.docLength;",
    "    if (r.count === 0) return;",
    "    if (used + r.count > terms.length) {",
    "      const size = Math.max(terms.length * 2, used + r.count);",
    "      const t = new Int32Array(size); t.set(terms.subarray(0, used)); terms = t;",
    "      const f = new Int32Array(size); f.set(tfs.subarray(0, used)); tfs = f;",
    "    }",
    "    terms.set(kernel.terms().subarray(0, r.count), used); tfs.set(kernel.tfs().subarray(0, r.count), used); used += r.count;",
    "  });",
    "  const fresh = kernel.takeNewStems();",
    "  const outTerms = terms.slice(0, used), outTfs = tfs.slice(0, used);",
    "  parentPort.postMessage({ id: message.id, meta, terms: outTerms, tfs: outTfs, newStems: fresh.stems, firstNew: fresh.firstNew }, [meta.buffer, outTerms.buffer, outTfs.buffer]);",
    "});"
  ].join("\n")
