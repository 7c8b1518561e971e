/**
 * A session's known secrets as one value (provider keys, the operator's excluded variables, an
 * MCP server's credentials: src/bash/shell-env.ts and src/mcp/server-config.ts say which), in the
 * forms redaction needs: the strings longest first (so a key containing another goes whole),
 * their UTF-8 bytes for byte streams, and the longest byte length (what a stream may hold back).
 */

/** The shortest piece of a secret treated as the secret, wherever it is (a cut key). */
export const FRAGMENT = 12

export class Secrets {
  readonly values: ReadonlyArray<string>
  readonly buffers: ReadonlyArray<Buffer>
  readonly longest: number
  private piecesMade: ReadonlySet<string> | undefined

  constructor(values: Iterable<string>) {
    this.values = [...new Set(values)].filter((value) => value.length > 0).sort((a, b) => b.length - a.length)
    this.buffers = this.values.map((value) => Buffer.from(value, "utf8"))
    this.longest = this.buffers.reduce((max, value) => Math.max(max, value.length), 0)
  }

  get none(): boolean {
    return this.values.length === 0
  }

  /** Every FRAGMENT-long piece of every longer secret; made on first use (only tool names need it). */
  get pieces(): ReadonlySet<string> {
    this.piecesMade ??= new Set(
      this.values.flatMap((secret) => Array.from({ length: Math.max(0, secret.length - FRAGMENT + 1) }, (_, at) => secret.slice(at, at + FRAGMENT)))
    )
    return this.piecesMade
  }

  /** These secrets and `more`. */
  with(more: Iterable<string>): Secrets {
    return new Secrets([...this.values, ...more])
  }
}

export const noSecrets: Secrets = new Secrets([])
