import { describe, expect, it } from "vitest"
import { OutputCapture } from "../../../src/bash/foreground.ts"
import { RingBuffer } from "../../../src/bash/ring-buffer.ts"

const bytes = (text: string): Buffer => Buffer.from(text, "utf8")

describe("RingBuffer", () => {
  it("keeps the last `capacity` bytes with offsets that keep increasing", () => {
    const ring = new RingBuffer(10)
    ring.write(bytes("0123456"))
    expect([ring.start, ring.end]).toEqual([0, 7])
    ring.write(bytes("789abc"))
    expect([ring.start, ring.end]).toEqual([3, 13])
    expect(ring.read(0, 100).toString()).toBe("3456789abc")
    expect(ring.read(5, 8).toString()).toBe("567")
    // A chunk larger than the buffer keeps only its end.
    ring.write(bytes("ABCDEFGHIJKLMNOP"))
    expect([ring.start, ring.end]).toEqual([19, 29])
    expect(ring.read(19, 29).toString()).toBe("GHIJKLMNOP")
  })

  it("wraps many times and always reads the right bytes at an offset", () => {
    const ring = new RingBuffer(37)
    let all = ""
    for (let index = 0; index < 500; index++) {
      const chunk = `${index},`
      all += chunk
      ring.write(bytes(chunk))
      const from = Math.max(ring.start, ring.end - 20)
      expect(ring.read(from, ring.end).toString()).toBe(all.slice(from, ring.end))
    }
    expect(ring.start).toBe(all.length - 37)
  })

  it("grows its storage by doubling up to the capacity", () => {
    const ring = new RingBuffer(1024 * 1024)
    expect(ring.heldBytes).toBe(16 * 1024)
    ring.write(Buffer.alloc(40 * 1024, 97))
    expect(ring.heldBytes).toBe(64 * 1024)
    ring.write(Buffer.alloc(2 * 1024 * 1024, 98))
    expect(ring.heldBytes).toBe(1024 * 1024)
    expect(ring.read(ring.start, ring.start + 3).toString()).toBe("bbb")
  })

  it("reads text that neither starts nor ends inside a UTF-8 character", () => {
    const ring = new RingBuffer(7)
    ring.write(bytes("aé€x")) // a(1) é(2) €(3) x(1) = 7 bytes
    ring.write(bytes("ö")) // 9 bytes written: the buffer starts inside é
    expect(ring.start).toBe(2)
    const all = ring.readText(0, 100)
    expect(all).toEqual({ text: "€xö", from: 3, to: 9 })
    // A limit that ends inside € stops before it, and the next read picks it up whole.
    const first = ring.readText(3, 2)
    expect(first).toEqual({ text: "", from: 3, to: 3 })
    const partial = ring.readText(3, 4)
    expect(partial).toEqual({ text: "€x", from: 3, to: 7 })
    // An offset inside a character skips to the next one.
    expect(ring.readText(4, 100).text).toBe("xö")
  })

  it("holds back a character still being written, and gives everything once frozen", () => {
    const ring = new RingBuffer(64)
    const euro = bytes("€")
    ring.write(Buffer.concat([bytes("ab"), euro.subarray(0, 2)]))
    expect(ring.readText(0, 100)).toEqual({ text: "ab", from: 0, to: 2 })
    ring.write(euro.subarray(2))
    expect(ring.readText(2, 100)).toEqual({ text: "€", from: 2, to: 5 })
    ring.write(euro.subarray(0, 1))
    ring.freeze()
    expect(ring.readText(5, 100).to).toBe(6)
  })

  it("freezes to exactly the held bytes and can release them", () => {
    const ring = new RingBuffer(16)
    ring.write(bytes("hello world, hello ring"))
    ring.freeze()
    expect(ring.heldBytes).toBe(16)
    expect(ring.readText(0, 100)).toEqual({ text: "orld, hello ring", from: 7, to: 23 })
    ring.release()
    expect([ring.start, ring.end, ring.heldBytes]).toEqual([23, 23, 0])
    expect(ring.readText(0, 100).text).toBe("")
  })
})

describe("OutputCapture", () => {
  it("keeps everything under its limit", () => {
    const capture = new OutputCapture(100)
    capture.write(bytes("one\n"))
    capture.write(bytes("two\n"))
    expect(capture.text()).toBe("one\ntwo\n")
    expect([capture.totalBytes, capture.droppedBytes]).toEqual([8, 0])
  })

  it("keeps the first and last halves of a long output and says how much of the middle was dropped", () => {
    const capture = new OutputCapture(20)
    for (let index = 0; index < 100; index++) capture.write(bytes(`line ${index}\n`))
    expect(capture.text()).toBe("line 0\nlin\n[… 770 bytes of output dropped here …]\n8\nline 99\n")
    expect(capture.totalBytes).toBe(790)
    expect(capture.droppedBytes).toBe(770)
  })
})
