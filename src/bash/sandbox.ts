/**
 * The OS sandbox behind the classifier (defence in depth, docs/security.md): a shell command the
 * policy let run as a read runs with the whole filesystem read-only except a private /tmp and the
 * session's spill folder, without network, IPC, its host's name or capabilities, the kernel's
 * writable files read-only (sandbox-kernel.ts) and the host's unix sockets hidden
 * (sandbox-sockets.ts). Linux: bubblewrap (`bwrap`) when
 * installed; macOS: sandbox-exec with a generated profile. Elsewhere nothing: the classifier alone
 * decides, and the session says so when it starts (`sandboxStartNote`).
 *
 * No Landlock fallback: it would have to be applied by a helper process of the compiled binary
 * through bun:ffi (Node, which runs the tests, has no FFI), it gives no private /tmp and no mount
 * masking, and where bwrap is missing but Landlock is enabled is rare. A fallback that cannot be
 * tested here would be a promise, not a layer.
 *
 * A session runs its sandboxed commands in one long-lived bwrap with these arguments
 * (sandbox-pool.ts, sandbox-session.ts); `sandboxedArgv` is the per-command path, for
 * sandbox-exec and for callers without a session.
 *
 * bwrap's processes stay in the caller's process group and session (no `--new-session`), so
 * `kill(-pid)` and the /proc tree walk of process-tree.ts still reach all of them; on top of that
 * `--unshare-pid` kills every process of the sandbox when its first one ends, and
 * `--die-with-parent` ends the sandbox when Crystal dies, even of SIGKILL.
 */
import { spawnSync } from "node:child_process"
import * as path from "node:path"
import { locateSandbox, type SandboxStatus } from "./sandbox-detect.ts"
import { kernelInterfaceArgs } from "./sandbox-kernel.ts"
import { existingDir, realOrSelf } from "./sandbox-paths.ts"
import { isWithin } from "../files/within.ts"
import { hiddenSocketArgs, hostSocketCandidates, socketsToHide } from "./sandbox-sockets.ts"

export { sandboxStartNote, type SandboxStatus } from "./sandbox-detect.ts"

/** How a call is sandboxed; carried from the approval verdict to the shell tools. */
export type SandboxMode = "read-only"

export interface SandboxRequest {
  readonly mode: SandboxMode
  readonly cwd: string
  /** Directories that must stay visible (read-only) even under a masked one such as /tmp: the workspace and the fence's grants. */
  readonly readable: ReadonlyArray<string>
  /** Directories that stay writable (the session's spill folder); missing ones are skipped. */
  readonly writable: ReadonlyArray<string>
}

/** Directories replaced by an empty private tmpfs: scratch space, and the sockets in them (/run: docker, agents, D-Bus). */
const MASKED = ["/tmp", "/var/tmp", "/run"]
/** The same in the home: Docker Desktop's socket, gpg-agent's, ssh ControlMaster sockets (and the keys beside them). */
const HOME_MASKED = [".docker", ".gnupg", ".ssh"]
/** Kept visible under a masked directory: NixOS runs its programs from there. */
const SYSTEM_KEPT = ["/run/current-system"]

const bwrapFixedArgs = [
  "--ro-bind", "/", "/",
  "--dev", "/dev",
  // The sandbox's own processes only: the host's /proc shows every process's command line and,
  // for the same user, its environment (Crystal's own holds API keys).
  "--proc", "/proc",
  "--unshare-net",
  "--unshare-ipc",
  "--unshare-pid",
  // Its own host name: a change inside (as root, /proc/sys/kernel/hostname) stays there.
  "--unshare-uts",
  "--die-with-parent",
  // Run by root, bwrap keeps every capability, and CAP_SYS_ADMIN could remount `/` writable.
  "--cap-drop", "ALL"
]

/** The kernel's files exist or not for the life of the process: looked up once. */
let kernelArgs: Array<string> | undefined

const visibleDirs = (request: SandboxRequest): Array<string> => [...new Set([request.cwd, ...request.readable])]

/**
 * The directories masked for this request, by real path. A workspace that is one of them (or holds
 * it, as `/` does) must not disappear behind the mask: that one then stays read-only.
 */
const maskedDirs = (request: SandboxRequest, env: NodeJS.ProcessEnv): Array<string> => {
  const home = env.HOME
  const candidates = [...MASKED, ...(home === undefined || !path.isAbsolute(home) ? [] : HOME_MASKED.map((name) => path.join(home, name)))]
  const visible = visibleDirs(request)
  const masked = new Set<string>()
  for (const candidate of candidates) {
    if (!existingDir(candidate)) continue
    const real = realOrSelf(candidate)
    if (!visible.some((dir) => isWithin(dir, real)) && ![...masked].some((dir) => isWithin(dir, real))) masked.add(real)
  }
  return [...masked]
}

/**
 * The bwrap arguments before the shell's argv (the `--` included); `hiddenSockets` (hostSocketsToHide)
 * get /dev/null bound over them.
 */
export const bwrapArgs = (request: SandboxRequest, env: NodeJS.ProcessEnv = process.env, hiddenSockets: ReadonlyArray<string> = []): Array<string> => {
  const args = [...bwrapFixedArgs, ...(kernelArgs ??= kernelInterfaceArgs())]
  const visible = visibleDirs(request)
  for (const masked of maskedDirs(request, env)) {
    args.push("--tmpfs", masked)
    // What the session reads that lies under a masked directory comes back read-only (a workspace in /tmp).
    const keep = [...visible, ...SYSTEM_KEPT].filter((dir) => isWithin(masked, dir) && dir !== masked && existingDir(dir))
    for (const dir of keep) args.push("--ro-bind", dir, dir)
  }
  for (const dir of request.writable) if (existingDir(dir)) args.push("--bind", dir, dir)
  args.push(...hiddenSocketArgs(hiddenSockets))
  const tmpdir = env.TMPDIR
  if (tmpdir !== undefined && tmpdir !== "" && !isWithin("/tmp", path.resolve(tmpdir))) args.push("--setenv", "TMPDIR", "/tmp")
  args.push("--chdir", request.cwd, "--")
  return args
}

/** The host's unix sockets a sandbox started now for `request` hides (sandbox-sockets.ts): looked up at each sandbox's start. */
export const hostSocketsToHide = (request: SandboxRequest, env: NodeJS.ProcessEnv = process.env): Array<string> =>
  socketsToHide(hostSocketCandidates(env), {
    visible: [...visibleDirs(request), ...request.writable].map(realOrSelf),
    masked: maskedDirs(request, env),
    home: env.HOME === undefined ? undefined : realOrSelf(env.HOME)
  })

/** A string literal of sandbox-exec's profile language (a Scheme dialect). */
const sbString = (text: string): string => `"${text.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`

/**
 * The macOS profile: every write denied except to the temporary directories, the spill folder and
 * the terminal devices, and no network. Not private: macOS has no mount namespace, so /tmp is the
 * shared one. Untested here (this project's CI is Linux): kept to the smallest rule set.
 */
export const seatbeltProfile = (request: SandboxRequest, env: NodeJS.ProcessEnv = process.env): string => {
  const tmpdir = env.TMPDIR
  const writable = [
    "/private/tmp",
    "/private/var/tmp",
    ...(tmpdir === undefined || tmpdir === "" ? [] : [realOrSelf(tmpdir)]),
    ...request.writable.map(realOrSelf)
  ]
  return [
    "(version 1)",
    "(allow default)",
    "(deny network*)",
    "(deny file-write*)",
    `(allow file-write* ${writable.map((dir) => `(subpath ${sbString(dir)})`).join(" ")} (literal "/dev/null") (literal "/dev/zero") (literal "/dev/tty") (regex #"^/dev/fd/"))`
  ].join("\n")
}

let probed: SandboxStatus | undefined

/**
 * The sandbox, found and (for bwrap) tried once per process: a bwrap that cannot create its
 * namespaces here is reported with its own words.
 */
export const sandboxStatus = (): SandboxStatus => {
  if (probed !== undefined) return probed
  const found = locateSandbox(process.platform, process.env.PATH)
  if (!found.available || found.kind !== "bwrap") return (probed = found)
  const probe = spawnSync(found.program, [...bwrapArgs({ mode: "read-only", cwd: "/", readable: [], writable: [] }), "/bin/true"], {
    stdio: ["ignore", "ignore", "pipe"],
    timeout: 10_000
  })
  if (probe.status === 0) return (probed = found)
  const said = probe.stderr?.toString("utf8").trim().split("\n")[0] ?? ""
  return (probed = { available: false, reason: `bwrap cannot create a sandbox here (${said === "" ? probe.error?.message ?? `exit ${probe.status}` : said})` })
}

/** The program and arguments that run `shell -c script` in the sandbox, or undefined when there is none. */
export const sandboxedArgv = (
  request: SandboxRequest,
  shell: string,
  shellArgs: ReadonlyArray<string>
): { readonly file: string; readonly args: ReadonlyArray<string> } | undefined => {
  const status = sandboxStatus()
  if (!status.available) return undefined
  if (status.kind === "bwrap") return { file: status.program, args: [...bwrapArgs(request, process.env, hostSocketsToHide(request)), shell, ...shellArgs] }
  return { file: status.program, args: ["-p", seatbeltProfile(request), shell, ...shellArgs] }
}
