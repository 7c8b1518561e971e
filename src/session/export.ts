/**
 * /export and `crystal sessions export`: one self-contained JSON file (SPEC S1, seed 003). The
 * session document as saved, under a format marker, with the bytes of every image it references
 * inlined as base64 `data` when its media file (~/.crystal/media/<sha256>) is there and still holds
 * those bytes; an image whose file is missing or changed keeps its reference without bytes and is
 * named in the result. Subagents' transcripts (issue 26, every depth) get the same treatment. The
 * document given is the one to write: the session host and `crystal sessions export` pass it
 * redacted of the session's secrets (redact-document.ts).
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { writeFileAtomic } from "../files/atomic.ts"
import type { MediaStoreShape } from "../media/media-store.ts"
import type { ChildTranscript } from "./child-transcript.ts"
import type { SessionDocument } from "./document.ts"
import type { ImageRef, TranscriptItem } from "./items.ts"
import { SessionError } from "./store.ts"
import { messageOf } from "../text/error-text.ts"

export const exportFormat = "crystal-session-export"
export const exportVersion = 1

export interface ExportedImage extends ImageRef {
  /** The image bytes, base64; absent when the media file was missing or did not match its hash. */
  readonly data?: string
}

export interface SessionExport {
  readonly format: typeof exportFormat
  readonly version: typeof exportVersion
  readonly exportedAt: string
  /** The session document; its image references carry `data` where the bytes were available. */
  readonly session: SessionDocument
}

export interface ExportResult {
  readonly file: string
  /** sha256 of the images whose bytes could not be included. */
  readonly missingImages: ReadonlyArray<string>
}

const imagesOf = (item: TranscriptItem): ReadonlyArray<ImageRef> =>
  item._tag === "user" || item._tag === "tool_result" ? (item.images ?? []) : []

/** The bytes of a stored image as base64, only while they still hash to its name. */
const readMedia = (media: MediaStoreShape, sha256: string): Effect.Effect<string | undefined> =>
  media.read(sha256).pipe(
    Effect.map((bytes) => Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("base64")),
    Effect.orElseSucceed(() => undefined)
  )

/** A transcript with its subagents' transcripts (issue 26), each of which may have its own. */
interface Tree {
  readonly items: ReadonlyArray<TranscriptItem>
  readonly agents?: Readonly<Record<string, ChildTranscript>> | undefined
}

/** The images of a transcript and of its children at every depth. */
const imagesOfTree = (tree: Tree): ReadonlyArray<ImageRef> => [
  ...tree.items.flatMap(imagesOf),
  ...Object.values(tree.agents ?? {}).flatMap(imagesOfTree)
]

/** The tree with `inline` applied to every image list, children included. */
const withImages = <T extends Tree>(tree: T, inline: (images: ReadonlyArray<ImageRef>) => ReadonlyArray<ExportedImage>): T => {
  const items = tree.items.map((item): TranscriptItem =>
    (item._tag === "user" || item._tag === "tool_result") && item.images !== undefined ? { ...item, images: inline(item.images) } : item
  )
  const agents = tree.agents === undefined ? undefined : Object.fromEntries(Object.entries(tree.agents).map(([callId, child]) => [callId, withImages(child, inline)]))
  return { ...tree, items, ...(agents === undefined ? {} : { agents }) }
}

export const buildExport = (
  doc: SessionDocument,
  media: MediaStoreShape,
  now: Date = new Date()
): Effect.Effect<{ readonly exported: SessionExport; readonly missingImages: ReadonlyArray<string> }> =>
  Effect.gen(function* () {
    const wanted = [...new Set(imagesOfTree(doc).map((image) => image.sha256))]
    const bytes = new Map<string, string | undefined>()
    for (const sha256 of wanted) bytes.set(sha256, yield* readMedia(media, sha256))
    const inline = (images: ReadonlyArray<ImageRef>): ReadonlyArray<ExportedImage> =>
      images.map((image) => {
        const data = bytes.get(image.sha256)
        return data === undefined ? image : { ...image, data }
      })
    return {
      exported: { format: exportFormat, version: exportVersion, exportedAt: now.toISOString(), session: withImages(doc, inline) },
      missingImages: wanted.filter((sha256) => bytes.get(sha256) === undefined)
    }
  })

/** Whether `file` may be written: it does not exist yet, or it is an earlier Crystal export. */
const replaceableBy = (file: string): Effect.Effect<void, SessionError> =>
  Effect.promise(async () => {
    let text: string
    try {
      text = await fs.readFile(file, "utf8")
    } catch (error) {
      return (error as NodeJS.ErrnoException).code === "ENOENT" ? undefined : `cannot read it (${(error as Error).message})`
    }
    try {
      const parsed: unknown = JSON.parse(text)
      if (typeof parsed === "object" && parsed !== null && (parsed as { format?: unknown }).format === exportFormat) return undefined
    } catch {
      // not JSON: certainly not an export
    }
    return "it exists and is not a Crystal session export"
  }).pipe(
    Effect.flatMap((problem) =>
      problem === undefined ? Effect.void : Effect.fail(new SessionError({ message: `not exported: ${file}: ${problem}; choose another file (it was left untouched)` }))
    )
  )

/**
 * Builds the export and writes it atomically, owner-only (a transcript is private). It never
 * replaces a file the operator wrote: only a missing file or an earlier export.
 */
export const exportSession = (doc: SessionDocument, media: MediaStoreShape, file: string): Effect.Effect<ExportResult, SessionError> =>
  Effect.gen(function* () {
    yield* replaceableBy(file)
    const { exported, missingImages } = yield* buildExport(doc, media)
    yield* Effect.tryPromise({
      try: () => writeFileAtomic(file, `${JSON.stringify(exported, null, 2)}\n`, { mode: 0o600 }),
      catch: (error) => new SessionError({ message: `cannot write ${file} (${messageOf(error)})` })
    })
    return { file, missingImages }
  })

/** Where an export goes when no file is named: the given directory, named after the session. */
export const defaultExportFile = (dir: string, id: string): string => path.join(dir, `crystal-session-${id}.json`)
