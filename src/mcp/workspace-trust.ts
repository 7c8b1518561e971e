/**
 * The trust entry of a workspace's MCP server (issue 23, item 3): what the trust question shows
 * and what its hash covers.
 *
 * Shown: the command and its args, the working directory, every env key and value (and an HTTP
 * server's URL and headers), as written in mcp.json — `${env:…}` unexpanded, so the operator's own
 * secrets never appear — with a literal value under a credential-like name masked. A masked value
 * keeps its first characters; an env value that holds a space, a path or an option is shown whole,
 * since that is what a program would run (`CARGO_REGISTRY_CREDENTIAL_PROVIDER="sh ./x"`).
 *
 * Hashed: the entry as written, and the workspace files its command, args and env values name
 * (`./server.sh`, `probe.mjs` given to an interpreter, `--require=./x.cjs`, a workspace directory
 * put first in PATH) with their bytes, following links, like a tool set's files: editing
 * `server.sh` after trusting it asks again.
 */
import { createHash } from "node:crypto"
import * as path from "node:path"
import { MIN_SECRET_LENGTH } from "../bash/shell-env.ts"
import type { McpServerSettings } from "../config/schema.ts"
import { isWithin } from "../files/within.ts"
import { shellWord, shellWords } from "../terminal/shell-words.ts"
import { fileWords, inlineCodeNote } from "../trust/command-words.ts"
import { hashFiles } from "../trust/hash-files.ts"
import type { TrustEntry } from "../trust/trust-store.ts"
import { credentialName } from "./server-config.ts"

const reference = /\$\{env:[A-Za-z_][A-Za-z0-9_]*\}/

/** JSON with every object's keys sorted: the same entry hashes the same however it is formatted. */
export const canonicalJson = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`
  if (typeof value === "object" && value !== null) {
    const record = value as Record<string, unknown>
    const keys = Object.keys(record).filter((key) => record[key] !== undefined).sort()
    return `{${keys.map((key) => `${JSON.stringify(key)}:${canonicalJson(record[key])}`).join(",")}}`
  }
  return JSON.stringify(value)
}

/** A word that reads like a credential rather than like something a program runs or opens. */
const looksLikeToken = (word: string): boolean =>
  word.length >= MIN_SECRET_LENGTH && !reference.test(word) && !/^[-.~/]/.test(word) && !word.includes("/")

/**
 * `value` for the question. Under a credential-like `name` an env value that is one token-like
 * word is cut to its first characters; one with a space stays whole (it is a command line a
 * program may run). A header runs nothing, so each token-like word of it is cut (`Bearer abcd…`).
 */
export const shownValue = (name: string, value: string, isCredential: (name: string) => boolean, kind: "env" | "header"): string => {
  if (!isCredential(name)) return shellWord(value)
  const parts = value.split(/(\s+)/)
  if (kind === "env" && parts.length > 1) return shellWord(value)
  const masked = parts.map((part) => (looksLikeToken(part) ? `${part.slice(0, 4)}…` : part)).join("")
  return masked === value ? shellWord(value) : `${shellWord(masked)} (masked)`
}

const flags = (settings: McpServerSettings): string =>
  [
    settings.sampling === true ? " (sampling on: may ask your model)" : "",
    settings.trustAnnotations === true ? " (trusts its tools' read-only hints: such calls run unasked)" : "",
    settings.enabled === false ? " (disabled)" : ""
  ].join("")

const headerIsCredential = (name: string): boolean => /auth|key|token|secret|cookie/i.test(name)

/**
 * Git's settings from the environment (`GIT_CONFIG_KEY_0=core.fsmonitor`, `GIT_CONFIG_VALUE_0=./x`):
 * KEY matches the credential rule, but the pair names a setting and, often, a program git runs.
 * Always shown whole.
 */
const gitConfigPair = /^GIT_CONFIG_(KEY|VALUE)_\d+$/

const envIsCredential = (name: string): boolean => credentialName.test(name) && !gitConfigPair.test(name)

/** The server's working directory: `cwd` against the workspace (as written when it names a variable). */
const workingDirectory = (workspace: string, settings: McpServerSettings): string => {
  const cwd = settings.cwd ?? "."
  return reference.test(cwd) ? cwd : path.resolve(workspace, cwd)
}

/** The first line of the server's entry in the question, and the lines under it. */
export const describeServer = (workspace: string, settings: McpServerSettings): { readonly describe: string; readonly details: ReadonlyArray<string> } => {
  if (settings.url !== undefined) {
    return {
      describe: `HTTP ${shellWord(settings.url)}${flags(settings)}`,
      details: Object.entries(settings.headers ?? {}).map(([name, value]) => `header ${shellWord(name)}: ${shownValue(name, value, headerIsCredential, "header")}`)
    }
  }
  const argv = [settings.command ?? "", ...(settings.args ?? [])]
  const inline = inlineCodeNote(argv)
  return {
    describe: `${shellWords(argv)}${flags(settings)}`,
    details: [
      ...(inline === undefined ? [] : [inline]),
      `cwd ${shellWord(workingDirectory(workspace, settings))}`,
      ...Object.entries(settings.env ?? {}).map(([name, value]) => `env ${shellWord(name)}=${shownValue(name, value, envIsCredential, "env")}`)
    ]
  }
}

/**
 * The workspace paths a stdio server's command line and env name: every word of the command, the
 * args and the env values (trust/command-words.ts: split at white space, `=`, `:`, shell
 * metacharacters and quotes) resolved against its working
 * directory, kept when inside the workspace; with a PATH in its env, the command in each workspace
 * folder of that PATH. Whether each exists is hashFiles' business (a missing one hashes as missing,
 * so a file that appears later asks again).
 */
export const namedWorkspaceFiles = (workspace: string, settings: McpServerSettings): ReadonlyArray<string> => {
  if (settings.url !== undefined) return []
  const cwd = workingDirectory(workspace, settings)
  const base = reference.test(cwd) ? workspace : cwd
  const env = settings.env ?? {}
  const words = [settings.command ?? "", ...(settings.args ?? []), ...Object.values(env)].flatMap(fileWords)
  const inside = (file: string) => isWithin(workspace, file) && file !== workspace
  const files = words.map((word) => path.resolve(base, word)).filter(inside)
  const command = settings.command ?? ""
  if (env["PATH"] !== undefined && command !== "" && !command.includes("/")) {
    for (const dir of env["PATH"].split(":")) {
      if (dir === "" || reference.test(dir)) continue
      const candidate = path.resolve(base, dir, command)
      if (inside(candidate)) files.push(candidate)
    }
  }
  return [...new Set(files)]
}

/** The hash of the entry as written (`raw`, canonical JSON) and of the workspace files it names. */
export const serverTrustHash = (workspace: string, raw: unknown, settings: McpServerSettings): string => {
  const entry = canonicalJson(raw)
  const files = namedWorkspaceFiles(workspace, settings)
  const hash = createHash("sha256").update(entry)
  if (files.length > 0) hash.update("\0files\0").update(hashFiles(files))
  return hash.digest("hex")
}

export const workspaceTrustEntry = (workspace: string, name: string, raw: unknown, settings: McpServerSettings): TrustEntry => ({
  kind: "mcp",
  workspace,
  name,
  hash: serverTrustHash(workspace, raw, settings),
  ...describeServer(workspace, settings)
})
