/**
 * Image bytes stream from the media file into the request body instead of being built into it.
 * Through an SDK, a 20 MiB image would otherwise be held four times at once (base64, the data URL,
 * the JSON body, its UTF-8 copy for the socket: ~10× the image in peak memory). So a request
 * carries a short token where the base64 goes; the fetch every adapter gives its SDK finds the
 * tokens in the finished JSON body and sends it as a stream: the JSON around each token, then
 * the file's base64, read in small chunks, with an exact Content-Length. The bytes are hashed
 * while they stream and the last chunk waits for the check: a file that no longer matches its name
 * fails the request before its last chunk, so the server never gets a whole request with other
 * bytes (an image of one chunk sends none of them; a larger one may have sent its earlier chunks
 * of a body that never completes). A request without tokens is passed through untouched.
 *
 * A token says everything the fetch needs (the hash, the size, the file) and carries an HMAC of it
 * under a key of this process, so there is no table of prepared images to keep (per process or per
 * session): a token this process did not make, or one changed since, names nothing and fails the
 * request, as an unprepared image did when a table was kept.
 */
import * as fs from "node:fs/promises"
import { releaseImageMemory } from "./release-memory.ts"

/** Random per process: text from a model or a file cannot spell a token it does not know. */
const prefix = `crystal-image-${globalThis.crypto.randomUUID().replaceAll("-", "")}-`
const tokenPattern = new RegExp(`${prefix}([0-9a-f]{64})\\.(\\d{1,15})\\.([0-9a-f]+)\\.([0-9a-f]{64})`, "g")

interface StreamedImage {
  readonly file: string
  readonly bytes: number
}

const hex = (bytes: ArrayBuffer | Uint8Array): string => Buffer.from(bytes instanceof Uint8Array ? bytes : new Uint8Array(bytes)).toString("hex")
const signed = (sha256: string, image: StreamedImage): Uint8Array => new TextEncoder().encode(`${sha256}\n${image.bytes}\n${image.file}`)

/** This process's key for the tokens' HMAC, made with the first image sent (WebCrypto: no node:crypto at start-up). */
const macKey = (() => {
  let key: Promise<CryptoKey> | undefined
  return (): Promise<CryptoKey> => (key ??= globalThis.crypto.subtle.generateKey({ name: "HMAC", hash: "SHA-256" }, false, ["sign", "verify"]))
})()

/** Stands for the base64 of the media file `file` (`bytes` long, named by its sha256) in a request. */
export const streamedImageToken = async (sha256: string, file: string, bytes: number): Promise<string> => {
  const mac = await globalThis.crypto.subtle.sign("HMAC", await macKey(), signed(sha256, { file, bytes }))
  return `${prefix}${sha256}.${bytes}.${hex(Buffer.from(file, "utf8"))}.${hex(mac)}`
}

/** The image a token of this process names, or undefined when this process did not make it. */
const imageOf = async (match: RegExpMatchArray): Promise<StreamedImage | undefined> => {
  const [, sha256 = "", bytes = "", file = "", mac = ""] = match
  const image = { file: Buffer.from(file, "hex").toString("utf8"), bytes: Number(bytes) }
  const valid = await globalThis.crypto.subtle.verify("HMAC", await macKey(), Buffer.from(mac, "hex"), signed(sha256, image))
  return valid ? image : undefined
}

export const base64Length = (bytes: number): number => 4 * Math.ceil(bytes / 3)

/** A multiple of 3, so each chunk's base64 has no padding in the middle of the stream. */
const chunkBytes = 3 * 256 * 1024
const collectEvery = 8 * 1024 * 1024

type Part = Uint8Array | { readonly sha256: string; readonly image: StreamedImage }

const splitBody = async (body: string): Promise<ReadonlyArray<Part> | undefined> => {
  const encoder = new TextEncoder()
  const parts: Array<Part> = []
  let at = 0
  for (const match of body.matchAll(tokenPattern)) {
    const sha256 = match[1] ?? ""
    const image = await imageOf(match)
    if (image === undefined) return undefined
    parts.push(encoder.encode(body.slice(at, match.index)), { sha256, image })
    at = match.index + match[0].length
  }
  parts.push(encoder.encode(body.slice(at)))
  return parts
}

async function* imageChunks(sha256: string, image: StreamedImage): AsyncGenerator<Uint8Array> {
  const hash = (await import("./hash.ts")).makeSha256()
  const handle = await fs.open(image.file, "r")
  try {
    const buffer = Buffer.alloc(chunkBytes)
    let read = 0
    // One chunk is held back: the last goes only once the whole file has checked, so an image of one
    // chunk (768 KiB) sends no byte before its check; a larger one fails mid-body, never completing a request.
    let held: Uint8Array | undefined
    for (;;) {
      const { bytesRead } = await handle.read(buffer, 0, chunkBytes, null)
      if (bytesRead === 0) break
      const chunk = buffer.subarray(0, bytesRead)
      hash.update(chunk)
      read += bytesRead
      // Each chunk's base64 is garbage once sent; collect it every few MiB, or it piles up.
      if (read % collectEvery < bytesRead) releaseImageMemory()
      if (read > image.bytes) break
      if (held !== undefined) yield held
      held = Buffer.from(chunk.toString("base64"), "latin1")
    }
    if (read !== image.bytes || hash.hex() !== sha256) throw new Error(`the media file ${image.file} changed while it was being sent`)
    if (held !== undefined) yield held
  } finally {
    await handle.close()
  }
}

async function* bodyChunks(parts: ReadonlyArray<Part>): AsyncGenerator<Uint8Array> {
  for (const part of parts) {
    if (part instanceof Uint8Array) {
      if (part.length > 0) yield part
    } else {
      yield* imageChunks(part.sha256, part.image)
    }
  }
}

const toStream = (chunks: AsyncGenerator<Uint8Array>): ReadableStream<Uint8Array> =>
  new ReadableStream<Uint8Array>({
    async pull(controller) {
      try {
        const next = await chunks.next()
        if (next.done === true) controller.close()
        else controller.enqueue(next.value)
      } catch (error) {
        controller.error(error)
      }
    },
    async cancel() {
      await chunks.return(undefined)
    }
  })

type Fetch = (input: string | URL | Request, init?: RequestInit) => Promise<Response>

/** `inner`, sending the bodies that carry image tokens as streams of the files' base64. */
export const withStreamedImages =
  (inner: Fetch): Fetch =>
  async (input, init) => {
    const body = init?.body
    if (typeof body !== "string" || !body.includes(prefix)) return inner(input, init)
    const parts = await splitBody(body)
    if (parts === undefined) throw new Error("a request named an image that was not prepared for sending")
    const length = parts.reduce((sum, part) => sum + (part instanceof Uint8Array ? part.length : base64Length(part.image.bytes)), 0)
    const headers = new Headers(init?.headers)
    headers.set("content-length", String(length))
    // `duplex` is required by fetch for a stream body; TypeScript's RequestInit does not know it yet.
    const streamed: RequestInit & { readonly duplex: "half" } = { ...init, headers, body: toStream(bodyChunks(parts)), duplex: "half" }
    return inner(input, streamed)
  }
