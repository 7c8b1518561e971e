/**
 * Words for the search index: the stop words and declaration keywords the kernel is configured
 * with, the light stemmer applied to every distinct term, and query parsing. Splitting itself is
 * the kernel's (search/kernel.ts), so queries, paths and file contents are cut the same way.
 */
import * as fs from "node:fs"
import { searchKernel, type SearchKernel, type SearchKernelConfig } from "./kernel.ts"

/** Files over this size are not indexed. */
export const SEARCH_MAX_FILE_BYTES = 1024 * 1024

/**
 * Function words of English questions ("how is the retry-after header parsed"). Dropped from
 * queries and never indexed, so they must not be words that carry meaning in code: `new`, `get`,
 * `set`, `if`, `for`, `not`, `all`, `then`, `find` are kept.
 */
export const STOP_WORDS: ReadonlyArray<string> = [
  "a", "about", "am", "an", "and", "any", "are", "as", "at", "be", "been", "being", "but", "by", "can", "could", "did",
  "do", "does", "doing", "done", "for", "from", "had", "he", "her", "here", "his", "how", "i", "in", "into", "is", "it",
  "its", "me", "might", "must", "my", "of", "on", "onto", "or", "our", "please", "she", "should", "so", "such", "than",
  "that", "the", "their", "them", "there", "these", "they", "this", "those", "to", "us", "very", "was", "we", "were",
  "what", "when", "where", "whether", "which", "who", "whom", "whose", "why", "will", "with", "would", "you", "your"
]

/** An identifier right after one of these (spaces, tabs or `*` between) is a definition. */
export const DECL_KEYWORDS: ReadonlyArray<string> = [
  "class", "const", "def", "enum", "fn", "func", "function", "interface", "let", "macro", "mod", "module", "namespace",
  "struct", "trait", "type", "typedef", "var"
]

export const kernelConfig: SearchKernelConfig = {
  stopWords: STOP_WORDS.filter((word) => word.length >= 2),
  declKeywords: DECL_KEYWORDS,
  maxFileBytes: SEARCH_MAX_FILE_BYTES
}

/** A kernel on this thread (for queries, paths, snippets, incremental updates and cold builds). */
export const makeKernel = (expectedFiles = 0): SearchKernel => searchKernel(kernelConfig, fs, expectedFiles)

let shared: SearchKernel | undefined
/** A kernel for splitting text only (its term dictionary is never read). */
const splitter = (): SearchKernel => (shared ??= makeKernel())

/** The kept, lower-cased subwords of `text`, in order: `parseRetryAfter` → parse, retry, after. */
export const splitWords = (text: string): Array<string> => splitter().splitWords(text)

/**
 * A light stemmer for English and identifiers: plural and verb suffixes go, so that parse,
 * parses, parsed, parsing, parser and parsers are all `pars`; retry, retries, retried and
 * retrying are all `retry`. Words of 3 letters or fewer, and words with digits or non-ASCII
 * letters, are kept as they are. (It lives in the kernel, which stems every distinct term.)
 */
export const stem = (word: string): string => splitter().stem(word)

export interface ParsedQuery {
  /** Distinct stems, in query order. */
  readonly stems: ReadonlyArray<string>
  /** The words as typed (lower-cased), for the message when nothing is searchable. */
  readonly words: ReadonlyArray<string>
}

/**
 * The stems a query searches for: its words split like identifiers, stop words dropped (the
 * kernel drops them), stemmed, duplicates removed.
 */
export const parseQuery = (query: string): ParsedQuery => {
  const words = splitWords(query)
  const stems: Array<string> = []
  for (const word of words) {
    const s = stem(word)
    if (!stems.includes(s)) stems.push(s)
  }
  return { stems, words }
}
