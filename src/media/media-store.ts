/**
 * The MediaStore service (SPEC I4): image bytes, content-addressed, owner-only, under
 * `~/.crystal/media/<sha256>`. An image is checked (signature, 20 MiB cap) and written — temp file,
 * fsync, atomic rename — before any session refers to it, so a saved session never names bytes
 * that are not on disk. Reads hash the bytes again: a file changed behind the session's back is
 * reported, never sent. Nothing here deletes media (another session may still refer to it).
 */
import { createReadStream } from "node:fs"
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { stageFile } from "../files/atomic.ts"
import { ImageTooLarge, MediaUnavailable, MediaWriteFailed, UnsupportedImage, type MediaError } from "./errors.ts"
import { imageSize, type ImageSize } from "./image-size.ts"
import { describeBytes, sniffImage, type ImageMime } from "./image-type.ts"
import { streamedImageToken } from "./streamed-body.ts"
import { messageOf } from "../text/error-text.ts"

/** SPEC I4: no image above this enters a session, from any source. */
export const maxImageBytes = 20 * 1024 * 1024

export interface CheckedImage {
  readonly mime: ImageMime
  /** The pixel size the header declares, when it says. */
  readonly size: ImageSize | undefined
}

export interface StoredImage extends CheckedImage {
  readonly sha256: string
  readonly bytes: number
}

export interface MediaStoreShape {
  readonly dir: string
  /** Signature and size checks alone; `source` names the image in the refusal ("the clipboard", a path). */
  readonly check: (bytes: Uint8Array, source: string) => Effect.Effect<CheckedImage, UnsupportedImage | ImageTooLarge>
  /** Checks, then keeps the bytes (once per content); the image may be referred to when this succeeds. */
  readonly put: (bytes: Uint8Array, source: string) => Effect.Effect<StoredImage, MediaError>
  /** The bytes of a stored image, only while they still hash to `sha256`. */
  readonly read: (sha256: string) => Effect.Effect<Uint8Array, MediaUnavailable>
  /**
   * What a request carries for the image's base64, once the file is known to be intact: the
   * disk store gives a token that the adapters' fetch replaces by the file's bytes as they stream
   * (streamed-body.ts), so the image is never held in memory whole; the memory store, the base64.
   */
  readonly base64ForRequest: (sha256: string) => Effect.Effect<string, MediaUnavailable>
}

export const isSha256 = (value: string): boolean => /^[0-9a-f]{64}$/.test(value)

/** Loaded with the first image: the start-up path does without node:crypto. */
const sha256Of = async (bytes: Uint8Array): Promise<string> => (await import("./hash.ts")).sha256Of(bytes)

export const checkImage = (bytes: Uint8Array, source: string): Effect.Effect<CheckedImage, UnsupportedImage | ImageTooLarge> => {
  if (bytes.length > maxImageBytes) return Effect.fail(new ImageTooLarge({ source, bytes: bytes.length, limit: maxImageBytes }))
  const mime = sniffImage(bytes)
  if (mime === undefined) return Effect.fail(new UnsupportedImage({ source, seen: describeBytes(bytes) }))
  return Effect.succeed({ mime, size: imageSize(bytes, mime) })
}


/** The store on disk under `dir`. */
export const makeMediaStore = (dir: string): MediaStoreShape => {
  let dirReady: Promise<void> | undefined
  // Created owner-only, and narrowed if an earlier version (or the operator) left it wider.
  const ensureDir = (): Promise<void> =>
    (dirReady ??= fs.mkdir(dir, { recursive: true, mode: 0o700 }).then(() => fs.chmod(dir, 0o700)))

  const readVerified = async (sha256: string): Promise<Uint8Array | MediaUnavailable> => {
    if (!isSha256(sha256)) return new MediaUnavailable({ sha256, reason: "missing" })
    let bytes: Uint8Array
    try {
      bytes = await fs.readFile(path.join(dir, sha256))
    } catch (error) {
      return new MediaUnavailable({ sha256, reason: (error as NodeJS.ErrnoException).code === "ENOENT" ? "missing" : "unreadable" })
    }
    return (await sha256Of(bytes)) === sha256 ? bytes : new MediaUnavailable({ sha256, reason: "altered" })
  }

  /** Hashes the file in chunks: checking a 20 MiB image holds 64 KiB of it at a time. */
  const verifyInPlace = async (sha256: string): Promise<{ readonly file: string; readonly bytes: number } | MediaUnavailable> => {
    if (!isSha256(sha256)) return new MediaUnavailable({ sha256, reason: "missing" })
    const file = path.join(dir, sha256)
    const hash = (await import("./hash.ts")).makeSha256()
    let bytes = 0
    try {
      for await (const chunk of createReadStream(file)) {
        const piece = chunk as Buffer
        bytes += piece.length
        hash.update(piece)
      }
    } catch (error) {
      return new MediaUnavailable({ sha256, reason: (error as NodeJS.ErrnoException).code === "ENOENT" ? "missing" : "unreadable" })
    }
    return hash.hex() === sha256 ? { file, bytes } : new MediaUnavailable({ sha256, reason: "altered" })
  }

  /**
   * The bytes go to disk (a staged temp file, fsynced) while their hash is computed; the file then
   * takes its name, unless an intact copy is already kept.
   */
  const keep = (bytes: Uint8Array): Effect.Effect<string, MediaWriteFailed> =>
    Effect.tryPromise({
      try: async () => {
        await ensureDir()
        const { sha256Of: hashNow } = await import("./hash.ts")
        const file = await stageFile(dir, bytes, { mode: 0o600, whileWriting: () => hashNow(bytes) })
        const sha256 = file.result
        if ((await readVerified(sha256)) instanceof Uint8Array) await file.discard()
        else await file.commit(path.join(dir, sha256))
        return sha256
      },
      catch: (error) => new MediaWriteFailed({ message: `cannot keep the image in ${dir} (${messageOf(error)})` })
    })

  return {
    dir,
    check: checkImage,
    put: (bytes, source) =>
      Effect.gen(function* () {
        const checked = yield* checkImage(bytes, source)
        const sha256 = yield* keep(bytes)
        return { ...checked, sha256, bytes: bytes.length }
      }).pipe(Effect.withSpan("MediaStore.put")),
    read: (sha256) =>
      Effect.promise(() => readVerified(sha256)).pipe(
        Effect.flatMap((result) => (result instanceof Uint8Array ? Effect.succeed(result) : Effect.fail(result))),
        Effect.withSpan("MediaStore.read")
      ),
    base64ForRequest: (sha256) =>
      Effect.promise(() => verifyInPlace(sha256)).pipe(
        Effect.flatMap((result) =>
          result instanceof MediaUnavailable ? Effect.fail(result) : Effect.promise(() => streamedImageToken(sha256, result.file, result.bytes))
        ),
        Effect.withSpan("MediaStore.base64ForRequest")
      )
  }
}

/** Kept in memory, with the same checks: for tests of what uses images, not of the disk. */
export const makeMemoryMediaStore = (): MediaStoreShape => {
  const kept = new Map<string, Uint8Array>()
  const read = (sha256: string): Effect.Effect<Uint8Array, MediaUnavailable> => {
    const bytes = kept.get(sha256)
    return bytes === undefined ? Effect.fail(new MediaUnavailable({ sha256, reason: "missing" })) : Effect.succeed(bytes)
  }
  return {
    dir: "(memory)",
    check: checkImage,
    put: (bytes, source) =>
      Effect.gen(function* () {
        const checked = yield* checkImage(bytes, source)
        const sha256 = yield* Effect.promise(() => sha256Of(bytes))
        kept.set(sha256, bytes.slice())
        return { ...checked, sha256, bytes: bytes.length }
      }),
    read,
    base64ForRequest: (sha256) => Effect.map(read(sha256), (bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64"))
  }
}

export class MediaStore extends Context.Tag("crystal/MediaStore")<MediaStore, MediaStoreShape>() {
  static readonly make = (dir: string): Effect.Effect<MediaStoreShape> => Effect.sync(() => makeMediaStore(dir))
  static readonly layer = (dir: string): Layer.Layer<MediaStore> => Layer.effect(MediaStore, MediaStore.make(dir))
  static readonly layerTest = (): Layer.Layer<MediaStore> => Layer.sync(MediaStore, makeMemoryMediaStore)
}
