import * as fs from "node:fs"
import * as http from "node:http"
import * as net from "node:net"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { sha256Of } from "../../../src/media/hash.ts"
import { base64Length, streamedImageToken, withStreamedImages } from "../../../src/media/streamed-body.ts"
import { makePng } from "../../support/images.ts"
import { tempDir } from "../../support/temp.ts"

interface Received {
  readonly body: string
  readonly contentLength: string | undefined
  readonly chunked: boolean
}

let server: http.Server
let url: string
const received: Array<Received> = []

beforeAll(async () => {
  server = http.createServer((request, response) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => {
      received.push({
        body: Buffer.concat(chunks).toString("latin1"),
        contentLength: request.headers["content-length"],
        chunked: request.headers["transfer-encoding"] === "chunked"
      })
      response.end("{}")
    })
    request.on("error", () => response.destroy())
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/`
})
afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())))

const send = withStreamedImages(fetch)

const stored = async (bytes: Buffer): Promise<{ readonly file: string; readonly sha256: string }> => {
  const dir = await tempDir()
  const sha256 = sha256Of(bytes)
  const file = path.join(dir, sha256)
  fs.writeFileSync(file, bytes)
  return { file, sha256 }
}

describe("withStreamedImages", () => {
  it("sends the file's base64 where its token is, with an exact Content-Length", async () => {
    // Not a multiple of 3 and larger than one chunk: padding only at the very end.
    const png = Buffer.concat([makePng(700, 400, { noise: true }), Buffer.from([1])])
    const { file, sha256 } = await stored(png)
    const token = await streamedImageToken(sha256, file, png.length)
    const body = JSON.stringify({ messages: [{ content: [{ text: "héllo ✓" }, { url: `data:image/png;base64,${token}` }] }] })
    const response = await send(url, { method: "POST", body, headers: { "content-type": "application/json" } })
    expect(response.status).toBe(200)
    const got = received.at(-1)
    const expected = body.replace(token, png.toString("base64"))
    expect(got?.body).toBe(Buffer.from(expected, "utf8").toString("latin1"))
    expect(got?.contentLength).toBe(String(Buffer.byteLength(expected, "utf8")))
    expect(got?.chunked).toBe(false)
    expect(base64Length(png.length)).toBe(png.toString("base64").length)
  })

  it("streams the same image twice in one body", async () => {
    const png = makePng(10, 10)
    const { file, sha256 } = await stored(png)
    const token = await streamedImageToken(sha256, file, png.length)
    await send(url, { method: "POST", body: JSON.stringify({ a: token, b: token }) })
    expect(received.at(-1)?.body).toBe(JSON.stringify({ a: png.toString("base64"), b: png.toString("base64") }))
  })

  it("passes a body without tokens through untouched", async () => {
    await send(url, { method: "POST", body: '{"plain":true}' })
    expect(received.at(-1)).toMatchObject({ body: '{"plain":true}', contentLength: "14" })
  })

  it("fails the request, sending nothing false, when the file changed after it was checked", async () => {
    const png = makePng(300, 300, { noise: true })
    const { file, sha256 } = await stored(png)
    const token = await streamedImageToken(sha256, file, png.length)
    const damaged = Buffer.from(png)
    damaged[damaged.length - 10] = (damaged[damaged.length - 10] ?? 0) ^ 0xff
    fs.writeFileSync(file, damaged)
    const before = received.length
    await expect(send(url, { method: "POST", body: JSON.stringify({ image: token }) })).rejects.toThrow()
    // The server never saw a complete request.
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(received.slice(before).every((request) => request.body.length < Buffer.byteLength(JSON.stringify({ image: png.toString("base64") })))).toBe(true)
  })

  it("sends no byte of an image of one chunk that changed after it was checked: the check comes before its last chunk", async () => {
    // A raw socket that keeps every byte that arrives, whether or not a request completes.
    const arrived: Array<Buffer> = []
    const sockets: Array<net.Socket> = []
    const raw = net.createServer((socket) => {
      sockets.push(socket)
      socket.on("data", (data: Buffer) => arrived.push(data))
      socket.on("error", () => undefined)
    })
    await new Promise<void>((resolve) => raw.listen(0, "127.0.0.1", resolve))
    try {
      const png = makePng(200, 200, { noise: true })
      expect(png.length).toBeLessThan(768 * 1024)
      const { file, sha256 } = await stored(png)
      const token = await streamedImageToken(sha256, file, png.length)
      const damaged = Buffer.from(png)
      damaged[damaged.length - 10] = (damaged[damaged.length - 10] ?? 0) ^ 0xff
      fs.writeFileSync(file, damaged)
      const rawUrl = `http://127.0.0.1:${(raw.address() as AddressInfo).port}/`
      await expect(send(rawUrl, { method: "POST", body: JSON.stringify({ image: token }) })).rejects.toThrow()
      await new Promise((resolve) => setTimeout(resolve, 50))
      const got = Buffer.concat(arrived).toString("latin1")
      expect(got).toContain("POST /")
      // Not even the start of the image's base64, which both files share.
      expect(got).not.toContain(damaged.toString("base64").slice(0, 64))
    } finally {
      for (const socket of sockets) socket.destroy()
      await new Promise<void>((resolve) => raw.close(() => resolve()))
    }
  })

  it("refuses a token of this process that names no prepared image", async () => {
    const png = makePng(2, 2)
    const { file, sha256 } = await stored(png)
    const token = await streamedImageToken(sha256, file, png.length)
    const unknown = token.replace(sha256, "f".repeat(64))
    await expect(send(url, { method: "POST", body: JSON.stringify({ image: unknown }) })).rejects.toThrow("not prepared for sending")
  })

  it("refuses a token whose file, size or signature was changed: only what this process prepared is read and sent", async () => {
    const png = makePng(4, 4)
    const { file, sha256 } = await stored(png)
    const secret = path.join(path.dirname(file), "id_ed25519")
    fs.writeFileSync(secret, "-----BEGIN OPENSSH PRIVATE KEY-----\n")
    const token = await streamedImageToken(sha256, file, png.length)
    const [head = "", size = "", fileHex = "", mac = ""] = token.split(".")
    const hexOf = (text: string) => Buffer.from(text, "utf8").toString("hex")
    const forged = [
      [head, size, hexOf(secret), mac].join("."),
      [head, String(png.length + 1), fileHex, mac].join("."),
      [head, size, fileHex, "0".repeat(64)].join(".")
    ]
    const before = received.length
    for (const candidate of forged) {
      await expect(send(url, { method: "POST", body: JSON.stringify({ image: candidate }) })).rejects.toThrow("not prepared for sending")
    }
    expect(received.length).toBe(before)
    // The genuine token still sends the image.
    await send(url, { method: "POST", body: JSON.stringify({ image: token }) })
    expect(received.at(-1)?.body).toBe(JSON.stringify({ image: png.toString("base64") }))
  })
})
