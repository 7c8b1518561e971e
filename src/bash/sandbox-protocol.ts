/**
 * The frames between Crystal and the supervisor inside a session's sandbox (sandbox-session.ts,
 * sandbox-supervisor.ts), over the supervisor's stdin (host → supervisor) and stdout (back):
 * `u32 length | u8 kind | u32 command id | payload`, the length counting kind, id and payload.
 * Control payloads are JSON; output is the raw bytes a command wrote. No dependency: the
 * supervisor loads this and node builtins only.
 */

/** Host → supervisor. */
export const RUN = 1
/** The host found the command's host pid: let it run (it waits on its stdin until then). */
export const GO = 2
/** The host could not take charge of it: kill it before it runs. */
export const CANCEL = 3
/** The host has what it needs: stop reading the command's pipes, forget it. */
export const RELEASE = 4

/** Supervisor → host. */
export const READY = 10
export const STARTED = 11
export const FAILED = 12
export const OUTPUT = 13
export const EXIT = 14
/** Both of the command's pipes were closed. */
export const CLOSED = 15

/** A frame longer than this is a broken (or hostile) peer. */
export const MAX_FRAME = 16 * 1024 * 1024

export interface RunRequest {
  readonly cwd: string
  readonly env: Readonly<Record<string, string>>
  readonly file: string
  readonly args: ReadonlyArray<string>
}

export interface Frame {
  readonly kind: number
  readonly id: number
  readonly payload: Buffer
}

const HEADER = 9

export const encodeFrame = (kind: number, id: number, payload: Buffer | string = Buffer.alloc(0)): Buffer => {
  const body = typeof payload === "string" ? Buffer.from(payload, "utf8") : payload
  const frame = Buffer.allocUnsafe(HEADER + body.length)
  frame.writeUInt32BE(5 + body.length, 0)
  frame.writeUInt8(kind, 4)
  frame.writeUInt32BE(id, 5)
  body.copy(frame, HEADER)
  return frame
}

export const encodeJson = (kind: number, id: number, value: unknown): Buffer => encodeFrame(kind, id, JSON.stringify(value))

/** Splits a byte stream into frames; `push` throws on a frame that cannot be one. */
export class FrameReader {
  private pending: Buffer = Buffer.alloc(0)

  push(chunk: Buffer, onFrame: (frame: Frame) => void): void {
    let data = this.pending.length === 0 ? chunk : Buffer.concat([this.pending, chunk])
    while (data.length >= 4) {
      const length = data.readUInt32BE(0)
      if (length < 5 || length > MAX_FRAME) throw new Error(`bad frame length ${length}`)
      if (data.length < 4 + length) break
      onFrame({ kind: data.readUInt8(4), id: data.readUInt32BE(5), payload: data.subarray(HEADER, 4 + length) })
      data = data.subarray(4 + length)
    }
    this.pending = data.length === 0 ? Buffer.alloc(0) : Buffer.from(data)
  }
}
