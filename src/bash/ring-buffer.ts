/**
 * A bounded byte buffer addressed by stream offsets: offset N is the N-th byte ever written, so
 * offsets keep increasing while only the last `capacity` bytes are held. Storage grows by doubling
 * up to `capacity` (a quiet task costs little), then wraps.
 */

const INITIAL_BYTES = 16 * 1024

/** Is `byte` a UTF-8 continuation byte (10xxxxxx)? */
const isContinuation = (byte: number): boolean => (byte & 0xc0) === 0x80

/** Length of the UTF-8 sequence a lead byte starts (1 for ASCII and for invalid bytes). */
const sequenceLength = (byte: number): number => (byte >= 0xf0 ? 4 : byte >= 0xe0 ? 3 : byte >= 0xc0 ? 2 : 1)

/**
 * How many bytes at the end of `bytes` start a UTF-8 character that is not complete, so a reader
 * can stop before it and pick the character up whole on the next read.
 */
export const incompleteTail = (bytes: Uint8Array): number => {
  for (let back = 1; back <= Math.min(4, bytes.length); back++) {
    const byte = bytes[bytes.length - back] ?? 0
    if (isContinuation(byte)) continue
    return sequenceLength(byte) > back ? back : 0
  }
  return 0
}

/** How many continuation bytes `bytes` starts with (at most 3): the rest of a character cut off before. */
export const leadingContinuations = (bytes: Uint8Array): number => {
  let count = 0
  while (count < 3 && count < bytes.length && isContinuation(bytes[count] ?? 0)) count++
  return count
}

export interface TextSlice {
  readonly text: string
  /** Offset of the first byte of `text`. */
  readonly from: number
  /** Offset just past the last byte of `text`: where the next read continues. */
  readonly to: number
}

export class RingBuffer {
  readonly capacity: number
  private storage: Buffer
  private written = 0
  /** Set by `freeze`: the held bytes, exactly, once no more will be written. */
  private frozen: Buffer | undefined

  constructor(capacity: number) {
    if (!Number.isInteger(capacity) || capacity < 1) throw new RangeError(`ring buffer capacity must be a positive integer, got ${capacity}`)
    this.capacity = capacity
    this.storage = Buffer.allocUnsafe(Math.min(capacity, INITIAL_BYTES))
  }

  /** Offset just past the newest byte: the number of bytes ever written. */
  get end(): number {
    return this.written
  }

  /** Offset of the oldest byte still held. */
  get start(): number {
    return this.frozen === undefined ? Math.max(0, this.written - this.capacity) : this.written - this.frozen.length
  }

  write(chunk: Uint8Array): void {
    if (chunk.length === 0) return
    if (this.frozen !== undefined) throw new Error("write to a frozen ring buffer")
    const total = this.written + chunk.length
    // Only the last `capacity` bytes of a large chunk can be held.
    const kept = chunk.length > this.capacity ? chunk.subarray(chunk.length - this.capacity) : chunk
    const firstOffset = total - kept.length
    if (this.storage.length < this.capacity && total > this.storage.length) this.grow(total)
    // Offset o lives at o % capacity: while the storage is smaller than the capacity no offset held
    // reaches past it, so the mapping is the same before and after the storage grows.
    const position = firstOffset % this.capacity
    const first = Math.min(kept.length, this.capacity - position)
    this.storage.set(kept.subarray(0, first), position)
    if (first < kept.length) this.storage.set(kept.subarray(first), 0)
    this.written = total
  }

  private grow(needed: number): void {
    let size = this.storage.length
    while (size < needed && size < this.capacity) size *= 2
    const grown = Buffer.allocUnsafe(Math.min(size, this.capacity))
    this.storage.copy(grown, 0, 0, this.written)
    this.storage = grown
  }

  /** The bytes in [from, to), clamped to what is held. */
  read(from: number, to: number): Buffer {
    const start = Math.max(from, this.start)
    const end = Math.min(to, this.end)
    if (end <= start) return Buffer.alloc(0)
    if (this.frozen !== undefined) {
      const base = this.start
      return Buffer.from(this.frozen.subarray(start - base, end - base))
    }
    const position = start % this.capacity
    const length = end - start
    const first = Math.min(length, this.capacity - position)
    const out = Buffer.allocUnsafe(length)
    this.storage.copy(out, 0, position, position + first)
    if (first < length) this.storage.copy(out, first, 0, length - first)
    return out
  }

  /**
   * Up to `limit` bytes from `from` (or from the oldest held byte when `from` is older) as UTF-8
   * text that neither starts nor ends inside a character: bytes of a character cut off by the
   * buffer's start (or by `from`) are skipped, and a character still incomplete at the end is left
   * for the next read.
   */
  readText(from: number, limit: number): TextSlice {
    let start = Math.max(from, this.start)
    const end = Math.min(this.end, start + Math.max(0, limit))
    let bytes = this.read(start, end)
    if (start > 0) {
      const skip = leadingContinuations(bytes)
      bytes = bytes.subarray(skip)
      start += skip
    }
    // Once frozen, nothing will complete a character cut at the very end: give its bytes as they are.
    const settled = this.frozen !== undefined && end === this.end
    const partial = settled ? 0 : incompleteTail(bytes)
    if (partial > 0) bytes = bytes.subarray(0, bytes.length - partial)
    return { text: bytes.toString("utf8"), from: start, to: start + bytes.length }
  }

  /** No more writes: keep exactly the held bytes (a finished task's log costs only its size). */
  freeze(): void {
    if (this.frozen !== undefined) return
    this.frozen = this.read(this.start, this.end)
    this.storage = Buffer.alloc(0)
  }

  /** Drops every held byte; offsets are kept (start = end). */
  release(): void {
    this.frozen = Buffer.alloc(0)
    this.storage = Buffer.alloc(0)
  }

  /** Bytes of memory held. */
  get heldBytes(): number {
    return this.frozen === undefined ? this.storage.length : this.frozen.length
  }
}
