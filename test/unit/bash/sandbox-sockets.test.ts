/**
 * The host's unix sockets and the sandbox (src/bash/sandbox-sockets.ts): real listening sockets
 * made by this test, connected to from a sandboxed command (the session's sandbox and a bwrap of
 * its own), bare first so the test sees a connection when there is one. What stays reachable is
 * asserted too, as docs/security.md says: a socket in the workspace, and one bound after the
 * session's sandbox started.
 */
import * as crypto from "node:crypto"
import * as fs from "node:fs"
import * as net from "node:net"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Exit from "effect/Exit"
import * as Scope from "effect/Scope"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { makeBackgroundBash } from "../../../src/bash/background.ts"
import { runForeground } from "../../../src/bash/foreground.ts"
import { sandboxStatus, type SandboxRequest } from "../../../src/bash/sandbox.ts"
import { sandboxedEnvironment, type SandboxPool } from "../../../src/bash/sandbox-pool.ts"
import { boundSocketPaths, MAX_HIDDEN_SOCKETS, namedSocketPaths, socketsToHide } from "../../../src/bash/sandbox-sockets.ts"
import { tempDir } from "../../support/temp.ts"
import { makeWorkspace, type Workspace } from "./support.ts"
import { noSecrets } from "../../../src/secrets/secrets.ts"

const status = sandboxStatus()
const usable = status.available && status.kind === "bwrap"
const skipped = usable ? "" : ` (skipped: ${status.available ? `${status.kind} cannot be tested on this platform` : status.reason})`

const servers: Array<net.Server> = []

/** A listening socket at `file` that greets whoever connects. */
const listen = async (file: string): Promise<string> => {
  fs.mkdirSync(path.dirname(file), { recursive: true })
  const server = net.createServer((socket) => {
    socket.on("error", () => {})
    socket.end("hello\n")
  })
  servers.push(server)
  await new Promise<void>((resolve, reject) => server.once("error", reject).listen(file, resolve))
  return file
}

afterAll(async () => {
  await Promise.all(servers.splice(0).map((server) => new Promise((resolve) => server.close(resolve))))
})

describe("finding the host's sockets", () => {
  it("reads the path sockets of /proc/net/unix, spaces included, without unnamed or abstract ones", () => {
    const table = [
      "Num       RefCount Protocol Flags    Type St Inode Path",
      "0000000000000000: 00000002 00000000 00010000 0001 01 23456 /run/docker.sock",
      "0000000000000000: 00000003 00000000 00000000 0001 03  4990",
      "0000000000000000: 00000002 00000000 00010000 0001 01 23457 @/tmp/.X11-unix/X0",
      "0000000000000000: 00000002 00000000 00010000 0001 01   123 /home/u/my dir/agent.sock",
      ""
    ].join("\n")
    expect(boundSocketPaths(table)).toEqual(["/run/docker.sock", "/home/u/my dir/agent.sock"])
    expect(boundSocketPaths(fs.readFileSync("/proc/net/unix", "latin1")).every((file) => file.startsWith("/"))).toBe(true)
  })

  it("takes SSH_AUTH_SOCK and a unix:// DOCKER_HOST, nothing relative or over TCP", () => {
    expect(namedSocketPaths({ SSH_AUTH_SOCK: "/h/agent.sock", DOCKER_HOST: "unix:///h/.colima/docker.sock" })).toEqual(["/h/agent.sock", "/h/.colima/docker.sock"])
    expect(namedSocketPaths({ SSH_AUTH_SOCK: "agent.sock", DOCKER_HOST: "tcp://127.0.0.1:2375" })).toEqual([])
  })

  it("hides sockets outside the visible and masked directories, by real path, the home's first, at most MAX_HIDDEN_SOCKETS", async () => {
    const root = await tempDir()
    const home = path.join(root, "home")
    const visible = path.join(root, "ws")
    const masked = path.join(root, "masked")
    const outside = path.join(root, "srv")
    await listen(path.join(visible, "dev.sock"))
    await listen(path.join(masked, "m.sock"))
    await listen(path.join(outside, "z.sock"))
    await listen(path.join(home, "agent.sock"))
    fs.writeFileSync(path.join(outside, "not-a-socket"), "")
    fs.symlinkSync(path.join(outside, "z.sock"), path.join(home, "link.sock"))
    const scope = { visible: [visible], masked: [masked], home }
    const candidates = [
      path.join(outside, "z.sock"),
      path.join(visible, "dev.sock"),
      path.join(masked, "m.sock"),
      path.join(outside, "not-a-socket"),
      path.join(outside, "gone.sock"),
      path.join(home, "link.sock"),
      path.join(home, "agent.sock")
    ]
    expect(socketsToHide(candidates, scope)).toEqual([path.join(home, "agent.sock"), path.join(outside, "z.sock")])

    const many = await Promise.all(Array.from({ length: MAX_HIDDEN_SOCKETS + 2 }, (_, index) => listen(path.join(outside, `many-${String(index).padStart(3, "0")}.sock`))))
    const hidden = socketsToHide([...many, path.join(home, "agent.sock")], scope)
    expect(hidden).toHaveLength(MAX_HIDDEN_SOCKETS)
    expect(hidden[0]).toBe(path.join(home, "agent.sock"))
    expect(hidden.at(-1)).toBe(many[MAX_HIDDEN_SOCKETS - 2])
  })

  it("takes SSH_AUTH_SOCK out of a sandboxed command's environment", () => {
    expect(sandboxedEnvironment({ PATH: "/bin", SSH_AUTH_SOCK: "/h/agent.sock" })).toEqual({ PATH: "/bin" })
  })
})

const tag = `${process.pid}-${crypto.randomBytes(4).toString("hex")}`
/** A home outside /tmp and /var/tmp (their masks would hide everything in it anyway), so the scan is what is tested. */
const fakeHome = fs.mkdtempSync(path.join(os.homedir(), ".crystal-sockets-test-"))
const varTmp = `/var/tmp/crystal-sockets-${tag}`
const saved = { HOME: process.env["HOME"], SSH_AUTH_SOCK: process.env["SSH_AUTH_SOCK"] }

/** Where each test socket lies, and whether a sandboxed command reaches it. */
const outsideSockets = {
  scanned: path.join(fakeHome, "plain.sock"),
  agent: path.join(fakeHome, "agent", "ssh.sock"),
  docker: path.join(fakeHome, ".docker", "run", "docker.sock"),
  controlMaster: path.join(fakeHome, ".ssh", "cm-git@example.com:22"),
  gpg: path.join(fakeHome, ".gnupg", "S.gpg-agent"),
  varTmp: path.join(varTmp, "daemon.sock")
}

beforeAll(async () => {
  if (!usable) return
  for (const file of Object.values(outsideSockets)) await listen(file)
  // The pool reads the process's environment, as Crystal's does.
  process.env["HOME"] = fakeHome
  process.env["SSH_AUTH_SOCK"] = outsideSockets.agent
})

afterAll(() => {
  for (const [name, value] of Object.entries(saved)) {
    if (value === undefined) delete process.env[name]
    else process.env[name] = value
  }
  fs.rmSync(fakeHome, { recursive: true, force: true })
  fs.rmSync(varTmp, { recursive: true, force: true })
})

const scopes: Array<Scope.CloseableScope> = []
afterEach(async () => {
  await Promise.all(scopes.splice(0).map((scope) => Effect.runPromise(Scope.close(scope, Exit.void))))
})

const CLIENT = `
const net = require("node:net")
const tryOne = (file) => new Promise((resolve) => {
  const socket = net.connect(file)
  socket.on("data", () => { socket.destroy(); resolve("reached") })
  socket.on("error", (error) => resolve(error.code))
})
;(async () => { for (const file of process.argv.slice(2)) console.log(file + " " + (await tryOne(file))) })()
`

/** Connects to each socket from a command (bare, in a bwrap of its own, or in the session's sandbox): "reached" or the error code, by path. */
const connectFrom = async (ws: Workspace, files: ReadonlyArray<string>, how: { readonly sandbox?: SandboxRequest; readonly sandboxPool?: SandboxPool }): Promise<Record<string, string>> => {
  fs.writeFileSync(path.join(ws.workspace, "client.cjs"), CLIENT)
  const command = `echo "SSH_AUTH_SOCK \${SSH_AUTH_SOCK-unset}"; ${JSON.stringify(process.execPath)} client.cjs ${files.map((file) => JSON.stringify(file)).join(" ")}`
  const result = await Effect.runPromise(runForeground({ secrets: noSecrets, command, cwd: ws.workspace, timeoutSeconds: 60, ...how }))
  expect(result.outcome, result.output).toEqual({ _tag: "Exited", code: 0 })
  const answers: Record<string, string> = {}
  for (const line of result.output.trim().split("\n")) {
    const at = line.lastIndexOf(" ")
    answers[line.slice(0, at)] = line.slice(at + 1)
  }
  return answers
}

const request = (ws: Workspace): SandboxRequest => ({ mode: "read-only", cwd: ws.workspace, readable: [ws.workspace], writable: [] })

describe.skipIf(!usable)(`a sandboxed command and the host's unix sockets${skipped}`, () => {
  it("reaches none outside the workspace (a bwrap of its own and the session's sandbox), nor sees SSH_AUTH_SOCK; reaches the workspace's", async () => {
    const ws = await makeWorkspace()
    const inWorkspace = await listen(path.join(ws.workspace, "dev.sock"))
    const all = [...Object.values(outsideSockets), inWorkspace]
    const reachedAll = Object.fromEntries([["SSH_AUTH_SOCK", outsideSockets.agent], ...all.map((file) => [file, "reached"])])
    expect(await connectFrom(ws, all, {})).toEqual(reachedAll)

    const expected = {
      SSH_AUTH_SOCK: "unset",
      // Bound over by /dev/null: found in /proc/net/unix, or named by SSH_AUTH_SOCK.
      [outsideSockets.scanned]: "ECONNREFUSED",
      [outsideSockets.agent]: "ECONNREFUSED",
      // Under an empty tmpfs.
      [outsideSockets.docker]: "ENOENT",
      [outsideSockets.controlMaster]: "ENOENT",
      [outsideSockets.gpg]: "ENOENT",
      [outsideSockets.varTmp]: "ENOENT",
      // A documented limit: the workspace's sockets stay reachable.
      [inWorkspace]: "reached"
    }
    expect(await connectFrom(ws, all, { sandbox: request(ws) })).toEqual(expected)

    const scope = Effect.runSync(Scope.make())
    scopes.push(scope)
    const background = await Effect.runPromise(makeBackgroundBash({ timeoutSeconds: null }).pipe(Effect.provideService(Scope.Scope, scope)))
    const session = { sandbox: request(ws), sandboxPool: background.sandbox }
    expect(await connectFrom(ws, all, session)).toEqual(expected)

    // A documented limit: a socket bound after the session's sandbox started stays reachable from it.
    const late = await listen(path.join(fakeHome, "late.sock"))
    expect(await connectFrom(ws, [late], session)).toEqual({ SSH_AUTH_SOCK: "unset", [late]: "reached" })
    expect(background.sandbox.sandboxes()).toHaveLength(1)
  })
})
