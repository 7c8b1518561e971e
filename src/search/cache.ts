/**
 * The search indexes of one session (search/forward-index.ts builds them): one per walked root, at most
 * MAX_INDEXES, the least recently used dropped. A session creates its cache with its tools and
 * clears it when it ends, so a process that switches sessions or workspaces never answers from
 * another session's index. It holds nothing until the first search, and loads no index code itself.
 */
import type { SearchIndex, SearchIndexOptions } from "./forward-index.ts"

/** Indexes kept at once (one per walked root). */
const MAX_INDEXES = 4

interface Entry {
  readonly index: Promise<SearchIndex>
  /** Serializes refresh+query on one index. */
  lock: Promise<unknown>
}

export class SearchIndexCache {
  /** How the indexes of this cache are built (tests set workers and re-stat budgets). */
  readonly options: SearchIndexOptions
  private readonly entries = new Map<string, Entry>()

  constructor(options: SearchIndexOptions = {}) {
    this.options = options
  }

  /** Roots with an index now, least recently used first. */
  get roots(): ReadonlyArray<string> {
    return [...this.entries.keys()]
  }

  /**
   * Runs `use` on the index of `root` (a real directory path), building it with `build` on first
   * use and refreshing it first otherwise. Calls on one root run one after another; an index whose
   * build or refresh failed is dropped, so the next call builds afresh.
   */
  async run<A>(root: string, build: () => Promise<SearchIndex>, use: (index: SearchIndex, fresh: boolean) => A | Promise<A>): Promise<A> {
    let entry = this.entries.get(root)
    let fresh = false
    if (entry === undefined) {
      fresh = true
      const index = build()
      const created: Entry = { index, lock: index }
      entry = created
      this.entries.set(root, created)
      index.catch(() => {
        if (this.entries.get(root) === created) this.entries.delete(root)
      })
      while (this.entries.size > MAX_INDEXES) {
        const oldest = this.entries.keys().next().value
        if (oldest === undefined) break
        this.entries.delete(oldest)
      }
    } else {
      this.entries.delete(root)
      this.entries.set(root, entry)
    }
    const current = entry
    const run = current.lock
      .catch(() => undefined)
      .then(async () => {
        const index = await current.index
        if (!fresh) await index.refresh()
        return use(index, fresh)
      })
    current.lock = run.catch(() => undefined)
    try {
      return await run
    } catch (error) {
      if (this.entries.get(root) === current && !fresh) this.entries.delete(root)
      throw error
    }
  }

  /** Forgets every index (the session has ended). */
  clear(): void {
    this.entries.clear()
  }
}
