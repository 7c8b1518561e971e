/**
 * Warms the way to the provider while the rest of start-up runs (Bun only; on Node and Deno this
 * does nothing): TCP and TLS through fetch.preconnect, whose socket the first request then takes
 * from fetch's pool. Bun 1.4 refuses to preconnect to a scheme's default port, which is every
 * hosted API ("Invalid port", oven-sh/bun#21633): for those only the DNS lookup starts ahead,
 * into the cache fetch reads (Bun.dns.prefetch). src/cli/early-start.ts warms the way before the
 * runtime loads (~25 ms before the session makes its client, docs/startup.md); the session's own
 * call for that origin is then skipped, so one start never opens two connections.
 */
interface BunNetworking {
  readonly preconnect?: (url: string) => void
  readonly prefetch?: (hostname: string, port: number) => void
}

/** The origin start-up has already warmed, until the session's client asks for it. */
let warmedEarly: string | undefined

const httpURL = (baseURL: string): URL | undefined => {
  try {
    const url = new URL(baseURL)
    return url.protocol === "http:" || url.protocol === "https:" ? url : undefined
  } catch {
    // An unparsable base URL fails properly, with a message, when the session checks it.
    return undefined
  }
}

/** fetch then goes through a proxy, which resolves the name itself (Bun's preconnect opens nothing then either). */
const proxyVariables = ["HTTPS_PROXY", "https_proxy", "HTTP_PROXY", "http_proxy"]
const proxied = (): boolean => proxyVariables.some((name) => (process.env[name] ?? "") !== "")

const warm = (url: URL): void => {
  const bun = (globalThis as { readonly Bun?: { readonly dns?: BunNetworking } }).Bun
  const bunFetch = fetch as typeof fetch & BunNetworking
  if (bun === undefined || typeof bunFetch.preconnect !== "function") return
  try {
    bunFetch.preconnect(url.origin)
    return
  } catch {
    // The default port (see above): the lookup at least.
  }
  if (proxied()) return
  try {
    bun.dns?.prefetch?.(url.hostname, Number(url.port || (url.protocol === "https:" ? 443 : 80)))
  } catch {
    // Only a head start: the request resolves the name itself.
  }
}

/** For the session's client (at its start, after /model). */
export const preconnect = (baseURL: string): void => {
  const url = httpURL(baseURL)
  if (url === undefined) return
  if (warmedEarly === url.origin) {
    warmedEarly = undefined
    return
  }
  warm(url)
}

/** For start-up, before the session exists: the model start-up expects the session to choose. */
export const preconnectEarly = (baseURL: string): void => {
  const url = httpURL(baseURL)
  if (url === undefined) return
  warm(url)
  warmedEarly = url.origin
}
