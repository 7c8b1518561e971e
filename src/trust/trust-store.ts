/**
 * Workspace code trust (SPEC B2): what a workspace supplies that can run code (tool sets, MCP
 * servers) is offered only once the operator has trusted it. Trust lives in one file under the
 * Crystal home, `~/.crystal/trust.json` (owner-only, written atomically), never in the workspace:
 * a trust file a repository ships is never read.
 *
 * An entry is keyed by its kind ("tools", "mcp"), the workspace's real path, the name of the set
 * (its folder, or the server's name) and a sha256 of what it would run: when those bytes change
 * (a `git pull`), the old trust no longer matches and the operator is asked again.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { writeFileAtomic } from "../files/atomic.ts"
import { codeOf } from "../text/error-text.ts"

/** "agent": a workspace agent file that names its own model (src/agents/agent-trust.ts). */
export type TrustKind = "tools" | "mcp" | "agent"

export interface TrustEntry {
  readonly kind: TrustKind
  /** The workspace's real path (symbolic links resolved). */
  readonly workspace: string
  readonly name: string
  /** Hex sha256 of what the entry runs (see hashFiles). */
  readonly hash: string
  /** The trust question's line for the entry: what the set or server runs, in short. */
  readonly describe: string
  /**
   * The lines under it, so that nothing that runs is left out: each tool's program, a server's
   * working directory and every env key and value (credential-like values masked).
   */
  readonly details: ReadonlyArray<string>
}

interface StoredEntry {
  readonly kind: string
  readonly workspace: string
  readonly name: string
  readonly hash: string
  readonly trustedAt?: string
}

export const trustFileName = "trust.json"
export const trustFile = (home: string): string => path.join(home, trustFileName)

export const trustKey = (entry: { readonly kind: string; readonly workspace: string; readonly name: string; readonly hash: string }): string =>
  JSON.stringify([entry.kind, entry.workspace, entry.name, entry.hash])

const isStored = (value: unknown): value is StoredEntry => {
  if (typeof value !== "object" || value === null) return false
  const record = value as Record<string, unknown>
  return ["kind", "workspace", "name", "hash"].every((key) => typeof record[key] === "string")
}

/** The stored entries; a missing file is none. A broken file is an error (never overwritten). */
const readStored = (home: string): ReadonlyArray<StoredEntry> => {
  const file = trustFile(home)
  let text: string
  try {
    text = fs.readFileSync(file, "utf8")
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === "ENOENT") return []
    throw new Error(`${file}: cannot read (${codeOf(error)})`)
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    throw new Error(`${file}: not valid JSON; fix or delete it to trust workspace tools again`)
  }
  const trusted = typeof json === "object" && json !== null ? (json as Record<string, unknown>)["trusted"] : undefined
  if (!Array.isArray(trusted)) throw new Error(`${file}: expected {"trusted": [...]}; fix or delete it to trust workspace tools again`)
  return trusted.filter(isStored)
}

/** Every trusted key; an unreadable trust file trusts nothing (the error is the caller's note). */
export const trustedKeys = (home: string): ReadonlySet<string> => new Set(readStored(home).map(trustKey))

export const isTrusted = (home: string, entry: TrustEntry): boolean => trustedKeys(home).has(trustKey(entry))

/** The entries not trusted yet, in their order. */
export const untrustedEntries = (home: string, entries: ReadonlyArray<TrustEntry>): ReadonlyArray<TrustEntry> => {
  const keys = trustedKeys(home)
  return entries.filter((entry) => !keys.has(trustKey(entry)))
}

/**
 * Records `entries` as trusted. An older hash of the same kind, workspace and name is replaced
 * (the file does not grow with every pull). Owner-only, atomic.
 */
export const trust = async (home: string, entries: ReadonlyArray<TrustEntry>): Promise<void> => {
  if (entries.length === 0) return
  const sameSet = (a: StoredEntry, b: TrustEntry) =>
    a.kind === b.kind && a.workspace === b.workspace && a.name === b.name
  const kept = readStored(home).filter((stored) => !entries.some((entry) => sameSet(stored, entry)))
  const now = new Date().toISOString()
  const added = entries.map(({ kind, workspace, name, hash }) => ({ kind, workspace, name, hash, trustedAt: now }))
  await writeFileAtomic(trustFile(home), `${JSON.stringify({ trusted: [...kept, ...added] }, null, 2)}\n`, { mode: 0o600 })
}
