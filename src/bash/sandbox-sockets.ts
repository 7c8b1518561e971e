/**
 * Unix sockets the sandbox hides. Connecting to a socket is not a write, so the read-only mounts
 * do not stop it, and a socket is often a door with more rights than the caller: the Docker
 * daemon (root on the host), an ssh-agent (signs with your keys), an ssh ControlMaster (a shell
 * on the remote host, no network needed from here), gpg-agent. The empty tmpfs over /tmp, /var/tmp,
 * /run and a few directories of the home hides every socket in them, also those made later; the
 * rest are found when the sandbox starts: every path socket bound in this network namespace
 * (/proc/net/unix) plus the ones named by SSH_AUTH_SOCK and DOCKER_HOST, each hidden by binding
 * /dev/null over it (connect() then fails with ECONNREFUSED) unless it lies in a directory the
 * session may read anyway (the workspace, the grants, the spill folder). Sockets bound after the
 * sandbox started, or re-bound at the same path (a restarted daemon), are not hidden.
 *
 * Each bind costs bwrap a pass over its mount table (0.3 ms apiece at 100 binds here, growing
 * with their number), so at most MAX_HIDDEN_SOCKETS are hidden: those under the home first, then
 * the others by path.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { realOrSelf } from "./sandbox-paths.ts"
import { isWithin } from "../files/within.ts"

export const MAX_HIDDEN_SOCKETS = 128

/** Environment variables naming an agent's socket: taken out of a sandboxed command's environment. */
export const SOCKET_VARIABLES = ["SSH_AUTH_SOCK"]

/** Never bound over: bwrap gives the sandbox its own /dev and /proc, and /sys holds no sockets. */
const SYSTEM_TREES = ["/dev", "/proc", "/sys"]

/** The paths of the path sockets in a /proc/net/unix table (abstract ones, `@…`, stay behind the network namespace). */
export const boundSocketPaths = (table: string): Array<string> => {
  const paths: Array<string> = []
  for (const line of table.split("\n").slice(1)) {
    // Num RefCount Protocol Flags Type St Inode Path: the path, when there is one, is the rest of the line.
    const match = /^\S+:\s+\S+\s+\S+\s+\S+\s+\S+\s+\S+\s+\d+ (\/.*)$/.exec(line)
    if (match?.[1] !== undefined) paths.push(match[1])
  }
  return paths
}

const readTable = (): string => {
  try {
    return fs.readFileSync("/proc/net/unix", "latin1")
  } catch {
    return ""
  }
}

/** Socket paths named by the environment: SSH_AUTH_SOCK, and DOCKER_HOST when it is `unix://…`. */
export const namedSocketPaths = (env: NodeJS.ProcessEnv): Array<string> => {
  const named: Array<string> = []
  const agent = env["SSH_AUTH_SOCK"]
  if (agent !== undefined && path.isAbsolute(agent)) named.push(agent)
  const docker = env["DOCKER_HOST"]
  if (docker?.startsWith("unix://") === true && path.isAbsolute(docker.slice("unix://".length))) named.push(docker.slice("unix://".length))
  return named
}

const isSocket = (file: string): boolean => {
  try {
    return fs.lstatSync(file).isSocket()
  } catch {
    return false
  }
}

export interface SocketScope {
  /** Directories whose sockets stay reachable (the workspace, the grants, the spill folder). */
  readonly visible: ReadonlyArray<string>
  /** Directories under an empty tmpfs in the sandbox: their sockets are gone already. */
  readonly masked: ReadonlyArray<string>
  readonly home: string | undefined
}

/**
 * The sockets to bind /dev/null over, by real path: those of `candidates` that are sockets now and
 * lie outside every visible and masked directory; the home's first, at most MAX_HIDDEN_SOCKETS.
 */
export const socketsToHide = (candidates: ReadonlyArray<string>, scope: SocketScope): Array<string> => {
  const found = new Set<string>()
  for (const candidate of candidates) {
    if (!isSocket(candidate)) continue
    const real = realOrSelf(candidate)
    if ([...scope.visible, ...scope.masked, ...SYSTEM_TREES].some((dir) => isWithin(dir, real))) continue
    found.add(real)
  }
  const home = scope.home
  const inHome = (file: string): boolean => home !== undefined && home !== "/" && isWithin(home, file)
  return [...found].sort((a, b) => Number(inHome(b)) - Number(inHome(a)) || (a < b ? -1 : a > b ? 1 : 0)).slice(0, MAX_HIDDEN_SOCKETS)
}

/** The host's sockets now: bound in this network namespace, and named by the environment. */
export const hostSocketCandidates = (env: NodeJS.ProcessEnv): Array<string> => [...boundSocketPaths(readTable()), ...namedSocketPaths(env)]

/** bwrap arguments hiding `sockets` (after the masks). */
export const hiddenSocketArgs = (sockets: ReadonlyArray<string>): Array<string> => sockets.flatMap((socket) => ["--ro-bind", "/dev/null", socket])

/** A sandboxed command's environment without the agent socket variables. */
export const withoutSocketVariables = <V>(env: Readonly<Record<string, V>>): Readonly<Record<string, V>> =>
  SOCKET_VARIABLES.some((name) => name in env) ? Object.fromEntries(Object.entries(env).filter(([name]) => !SOCKET_VARIABLES.includes(name))) : env
