/**
 * web_fetch's GET: the host's every address is checked (a literal IP, or every DNS answer) and the
 * request then connects to the checked address itself, with the Host header and TLS name set from
 * the URL, so a DNS answer that changes between check and connect (rebinding) cannot switch it.
 * No proxy, no cookies, no credentials: the only headers are the ones written here. Redirects to
 * the same host are followed (each hop checked again); a redirect to another host is handed back,
 * so the model's next call meets the approval for that host.
 */
import * as dns from "node:dns/promises"
import * as http from "node:http"
import * as https from "node:https"
import { isIP } from "node:net"
import * as tls from "node:tls"
import type { Readable } from "node:stream"
import * as zlib from "node:zlib"
import { inRange, parseAddress, parseRange, privateKind, type AddressRange } from "../config/address-ranges.ts"
import { codeOf, messageOf } from "../text/error-text.ts"
import { formatBytes } from "../text/bytes.ts"
import { webFetchURL } from "./web-fetch-spec.ts"

/** A reason the fetch stopped, written for the model. */
export class WebFetchProblem extends Error {}

export interface WebFetchOptions {
  /** config.json's webFetch.allowPrivate: host names, addresses and CIDR ranges allowed although private. */
  readonly allowPrivate: ReadonlyArray<string>
  readonly maxBytes: number
  readonly maxRedirects: number
  readonly timeoutMs: number
}

export interface Fetched {
  readonly _tag: "Fetched"
  readonly url: URL
  readonly status: number
  readonly statusText: string
  readonly contentType: string
  readonly body: Buffer
  /** The body went on past maxBytes; `body` is its beginning. */
  readonly truncated: boolean
  /** The addresses that redirected here, first first. */
  readonly redirectedFrom: ReadonlyArray<string>
}

export interface OtherHostRedirect {
  readonly _tag: "OtherHostRedirect"
  readonly from: URL
  readonly to: URL
  readonly status: number
}

const bare = (hostname: string): string => (hostname.startsWith("[") ? hostname.slice(1, -1) : hostname).replace(/\.$/, "").toLowerCase()

interface Allowance {
  readonly names: ReadonlySet<string>
  readonly ranges: ReadonlyArray<AddressRange>
}

const allowanceOf = (entries: ReadonlyArray<string>): Allowance => ({
  names: new Set(entries.filter((entry) => parseRange(entry) === undefined).map(bare)),
  ranges: entries.flatMap((entry) => parseRange(entry) ?? [])
})

interface Target {
  readonly address: string
  readonly family: 4 | 6
}

/** The address to connect to, once every address the host has is one web_fetch may reach. */
const checkedTarget = async (url: URL, allowance: Allowance): Promise<Target> => {
  const host = bare(url.hostname)
  const literal = isIP(host)
  const answers =
    literal === 0
      ? await dns.lookup(host, { all: true, verbatim: true }).catch((error: unknown) => {
          throw new WebFetchProblem(`web_fetch could not resolve ${host} (${codeOf(error)}).`)
        })
      : [{ address: host, family: literal }]
  if (answers.length === 0) throw new WebFetchProblem(`web_fetch could not resolve ${host}: no addresses.`)
  if (!allowance.names.has(host)) {
    for (const answer of answers) {
      const address = parseAddress(answer.address)
      const kind = address === undefined ? "unparsable" : privateKind(address)
      if (kind === undefined || (address !== undefined && allowance.ranges.some((range) => inRange(address, range)))) continue
      const what = literal === 0 ? `${host} resolves to ${answer.address}, ` : `${host} is `
      throw new WebFetchProblem(
        `web_fetch refuses ${url.href}: ${what}a ${kind} address. Private, loopback and link-local addresses are reached only when config.json's webFetch.allowPrivate lists them.`
      )
    }
  }
  const first = answers[0] ?? { address: host, family: 4 }
  return { address: first.address, family: first.family === 6 ? 6 : 4 }
}

const headers = (url: URL): http.OutgoingHttpHeaders => ({
  host: url.host,
  "user-agent": "Crystal web_fetch (+https://github.com/crystal)",
  accept: "text/html, application/xhtml+xml, application/json;q=0.9, text/*;q=0.8, image/*;q=0.7, */*;q=0.1",
  "accept-encoding": "gzip, deflate, br"
})

const decoded = (response: http.IncomingMessage): Readable => {
  const encoding = String(response.headers["content-encoding"] ?? "identity").trim().toLowerCase()
  if (encoding === "gzip" || encoding === "x-gzip") return response.pipe(zlib.createGunzip())
  if (encoding === "deflate") return response.pipe(zlib.createInflate())
  if (encoding === "br") return response.pipe(zlib.createBrotliDecompress())
  if (encoding === "identity" || encoding === "") return response
  throw new WebFetchProblem(`web_fetch cannot read a body sent with Content-Encoding ${encoding}.`)
}

interface Response {
  readonly status: number
  readonly statusText: string
  readonly location: string | undefined
  readonly contentType: string
  readonly body: Buffer
  readonly truncated: boolean
}

/** Reads the body until its end or `maxBytes` (counted after decompression, so a small gzip bomb stops there too). */
const readBody = (stream: Readable, maxBytes: number): Promise<{ body: Buffer; truncated: boolean }> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    let size = 0
    stream.on("data", (chunk: Buffer) => {
      if (size + chunk.length > maxBytes) {
        chunks.push(chunk.subarray(0, maxBytes - size))
        stream.destroy()
        resolve({ body: Buffer.concat(chunks), truncated: true })
        return
      }
      chunks.push(chunk)
      size += chunk.length
    })
    stream.on("end", () => resolve({ body: Buffer.concat(chunks), truncated: false }))
    stream.on("error", reject)
  })

/** One GET to `target`, the address checked for `url`'s host. */
const getOnce = (url: URL, target: Target, options: WebFetchOptions, signal: AbortSignal): Promise<Response> =>
  new Promise((resolve, reject) => {
    const secure = url.protocol === "https:"
    const host = bare(url.hostname)
    const request = (secure ? https : http).request({
      host: target.address,
      family: target.family,
      port: url.port === "" ? (secure ? 443 : 80) : Number(url.port),
      path: `${url.pathname}${url.search}`,
      method: "GET",
      headers: headers(url),
      agent: false,
      ...(secure ? { servername: isIP(host) === 0 ? host : "", checkServerIdentity: (_: string, cert: tls.PeerCertificate) => tls.checkServerIdentity(host, cert) } : {})
    })
    const abort = () => request.destroy(new WebFetchProblem("aborted"))
    signal.addEventListener("abort", abort, { once: true })
    const done = () => signal.removeEventListener("abort", abort)
    request.on("error", (error) => {
      done()
      reject(error)
    })
    request.on("response", (response) => {
      const status = response.statusCode ?? 0
      const location = status >= 300 && status < 400 ? response.headers.location : undefined
      const base = { status, statusText: response.statusMessage ?? "", location, contentType: String(response.headers["content-type"] ?? "") }
      if (location !== undefined) {
        response.resume()
        done()
        resolve({ ...base, body: Buffer.alloc(0), truncated: false })
        return
      }
      let stream: Readable
      try {
        stream = decoded(response)
      } catch (error) {
        response.destroy()
        done()
        reject(error)
        return
      }
      readBody(stream, options.maxBytes).then(
        (read) => {
          done()
          request.destroy()
          resolve({ ...base, ...read })
        },
        (error: unknown) => {
          done()
          reject(error)
        }
      )
    })
    request.end()
  })

/** What a connection failure says, with its code when the message does not name it ("self-signed certificate (DEPTH_ZERO_SELF_SIGNED_CERT)"). */
const failureText = (error: unknown): string => {
  const [code, message] = [codeOf(error), messageOf(error)]
  return message.includes(code) ? message : `${message} (${code})`
}

const withStop = (text: string): string => (/[.!?]$/.test(text) ? text : `${text}.`)

/** GETs `start`, following same-host redirects up to `maxRedirects`, within one deadline for the whole chain. */
export const webFetchGet = async (start: URL, options: WebFetchOptions, signal: AbortSignal): Promise<Fetched | OtherHostRedirect> => {
  const allowance = allowanceOf(options.allowPrivate)
  const deadline = AbortSignal.timeout(options.timeoutMs)
  const both = AbortSignal.any([signal, deadline])
  const redirectedFrom: Array<string> = []
  let url = start
  try {
    for (;;) {
      const target = await checkedTarget(url, allowance)
      const response = await getOnce(url, target, options, both)
      if (response.location === undefined) {
        return { _tag: "Fetched", url, status: response.status, statusText: response.statusText, contentType: response.contentType, body: response.body, truncated: response.truncated, redirectedFrom }
      }
      const next = URL.canParse(response.location, url.href) ? webFetchURL(new URL(response.location, url).href) : `an unreadable address ${JSON.stringify(response.location)}`
      if (typeof next === "string") throw new WebFetchProblem(`${url.href} redirects (HTTP ${response.status}) to ${response.location}, which web_fetch does not follow: ${next}`)
      if (bare(next.hostname) !== bare(start.hostname)) return { _tag: "OtherHostRedirect", from: url, to: next, status: response.status }
      if (redirectedFrom.length >= options.maxRedirects) {
        throw new WebFetchProblem(`web_fetch stopped after ${options.maxRedirects} redirects (the last one from ${url.href} to ${next.href}).`)
      }
      redirectedFrom.push(url.href)
      url = next
    }
  } catch (error) {
    if (deadline.aborted) throw new WebFetchProblem(`web_fetch gave up on ${url.href} after ${options.timeoutMs / 1000} s without a complete answer.`)
    if (error instanceof WebFetchProblem) throw error
    throw new WebFetchProblem(`web_fetch could not fetch ${url.href}: ${withStop(failureText(error))}`)
  }
}

/** The note for a body cut at the byte cap. */
export const truncatedNote = (maxBytes: number): string => `[the download stopped at ${formatBytes(maxBytes)}; what follows it on the server is not here]`
