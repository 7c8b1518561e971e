/// <reference types="bun" />
/**
 * A TCP pass-through to another local port that notes when it accepts each connection: the
 * moment a client's connection reached the server, which Bun's node:http does not report (it
 * tells of a connection only with its first request).
 */
import * as net from "node:net"
import { preciseNow } from "../../test/support/fake-llm/recorded-request.ts"

export interface TcpTap {
  /** http://127.0.0.1:PORT, in front of the target. */
  readonly url: string
  /** Accept times (epoch ms, as RecordedRequest.receivedAt), in order. */
  readonly accepted: ReadonlyArray<number>
  readonly close: () => Promise<void>
}

export const startTcpTap = async (targetPort: number): Promise<TcpTap> => {
  const accepted: Array<number> = []
  const sockets = new Set<net.Socket>()
  const server = net.createServer((client) => {
    accepted.push(preciseNow())
    const upstream = net.connect(targetPort, "127.0.0.1")
    for (const socket of [client, upstream]) {
      sockets.add(socket)
      socket.on("error", () => {
        client.destroy()
        upstream.destroy()
      })
      socket.once("close", () => sockets.delete(socket))
    }
    client.pipe(upstream)
    upstream.pipe(client)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()))
  const { port } = server.address() as net.AddressInfo // a TCP listen() always yields an AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy()
        server.close(() => resolve())
      })
  }
}
