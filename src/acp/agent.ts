/**
 * `crystal acp`: Crystal as an Agent Client Protocol agent on stdin/stdout, built on the official
 * SDK's stable v1 entry point (nothing Crystal uses needs /unstable). Stdout carries protocol
 * messages only: everything Crystal would print goes to stderr. Sessions close (saved, processes
 * stopped) when the client closes the connection or Crystal is told to stop.
 */
import * as Effect from "effect/Effect"
import * as acp from "@agentclientprotocol/sdk"
import { ExitCode } from "../../layers/exit-code.ts"
import { startupComplete } from "../../layers/runtime.ts"
import { writeInertStderr, writeStdout } from "../terminal/output.ts"
import { AcpSession, type AcpPeer } from "./session.ts"
import { handoff } from "./handoff.ts"
import { initializeResult } from "./initialize.ts"
import { stdinStream } from "./stdin.ts"
import { messageOf } from "../text/error-text.ts"

const log = (text: string): void => writeInertStderr(`crystal acp: ${text}\n`)

/**
 * Protocol messages, written whole and in order (the same synchronous writes as the rest of
 * Crystal). The SDK's answer to an `initialize` the start-up path already answered is dropped.
 */
const stdoutStream = (answered: string | number | undefined): WritableStream<Uint8Array> => {
  const decoder = new TextDecoder()
  let pending = answered
  let partial = ""
  return new WritableStream({
    write: (chunk) => {
      const text = partial + decoder.decode(chunk, { stream: true })
      const end = text.lastIndexOf("\n") + 1
      partial = text.slice(end)
      const lines = text.slice(0, end).split("\n").filter((line) => line !== "")
      for (const line of lines) {
        if (pending !== undefined && isAnswerTo(line, pending)) {
          pending = undefined
          continue
        }
        writeStdout(`${line}\n`)
      }
    }
  })
}

const isAnswerTo = (line: string, id: string | number): boolean => {
  try {
    const message = JSON.parse(line) as { id?: unknown; result?: unknown; error?: unknown }
    if (message.id !== id) return false
    // The early answer was a success: an error here means the SDK saw it otherwise, which the operator should know.
    if (message.error !== undefined) log(`initialize: the SDK refused what was already answered: ${JSON.stringify(message.error)}`)
    return true
  } catch {
    return false
  }
}

/** Nothing but the protocol on stdout, whatever a library does with console.log. */
const keepStdoutForProtocol = (): void => {
  console.log = console.error
  console.info = console.error
  console.debug = console.error
}

const refusal = (error: unknown): never => {
  if (error instanceof acp.RequestError) throw error
  throw new acp.RequestError(-32603, messageOf(error))
}

export const runAcp = (version: string): Effect.Effect<number> =>
  Effect.gen(function* () {
    keepStdoutForProtocol()
    const sessions = new Map<string, AcpSession>()
    // What the client said it offers, in initialize.
    const offered = { read: false, write: false }
    const find = (sessionId: string): AcpSession => {
      const session = sessions.get(sessionId)
      if (session === undefined) throw acp.RequestError.sessionNotFound(sessionId)
      return session
    }
    // Handlers run only once the connection below exists, and `peer` with it.
    const open = async (request: Parameters<typeof AcpSession.open>[0]) => {
      // The open session is closed for the load: gone from the map even when the load then fails.
      const earlier = request.resume === undefined ? undefined : sessions.get(request.resume)
      if (earlier !== undefined) {
        sessions.delete(earlier.id)
        await earlier.close()
      }
      const session = await AcpSession.open(request, peer, process.env).catch(refusal)
      sessions.set(session.id, session)
      startupComplete()
      return session
    }

    const app = acp
      .agent({ name: "crystal" })
      .onRequest(acp.methods.agent.initialize, ({ params }) => {
        offered.read = params.clientCapabilities?.fs?.readTextFile === true
        offered.write = params.clientCapabilities?.fs?.writeTextFile === true
        return initializeResult(params.protocolVersion, version)
      })
      .onRequest(acp.methods.agent.session.new, async ({ params }) => {
        const session = await open({ cwd: params.cwd, mcpServers: params.mcpServers })
        return { sessionId: session.id, modes: await session.modes() }
      })
      .onRequest(acp.methods.agent.session.load, async ({ params }) => {
        const session = await open({ cwd: params.cwd, mcpServers: params.mcpServers, resume: params.sessionId })
        await session.replay()
        return { modes: await session.modes() }
      })
      .onRequest(acp.methods.agent.session.prompt, async ({ params, signal }) => {
        const session = find(params.sessionId)
        // A $/cancel_request of the prompt cancels its turn as session/cancel does.
        const cancel = () => void session.cancel()
        signal.addEventListener("abort", cancel)
        try {
          return { stopReason: await session.prompt(params.prompt).catch(refusal) }
        } finally {
          signal.removeEventListener("abort", cancel)
        }
      })
      .onRequest(acp.methods.agent.session.setMode, async ({ params }) => {
        await find(params.sessionId).setMode(params.modeId).catch(refusal)
        return {}
      })
      .onNotification(acp.methods.agent.session.cancel, async ({ params }) => {
        await sessions.get(params.sessionId)?.cancel()
      })

    const connection = app.connect(acp.ndJsonStream(stdoutStream(handoff.answeredInitialize), handoff.input ?? stdinStream()))
    const peer: AcpPeer = {
      update: (sessionId, update) => connection.client.notify(acp.methods.client.session.update, { sessionId, update }).catch(() => undefined),
      requestPermission: (request, signal) =>
        connection.client.request(acp.methods.client.session.requestPermission, request, { cancellationSignal: signal, stopWaitingOnCancel: true }),
      log,
      editorFiles: (sessionId) =>
        !offered.read && !offered.write
          ? undefined
          : {
              read: offered.read
                ? async (file) => (await connection.client.request(acp.methods.client.fs.readTextFile, { sessionId, path: file })).content
                : undefined,
              write: offered.write
                ? async (file, content) => {
                    await connection.client.request(acp.methods.client.fs.writeTextFile, { sessionId, path: file, content })
                  }
                : undefined
            }
    }
    const closeAll = Effect.promise(() => Promise.all([...sessions.values()].map((session) => session.close().catch((error: unknown) => log(String(error))))))
    yield* Effect.promise(() => connection.closed).pipe(Effect.ensuring(closeAll))
    return ExitCode.ok
  })
