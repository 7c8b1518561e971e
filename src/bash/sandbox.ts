/**
 * The OS sandbox behind the classifier (defence in depth, docs/security.md): a shell command the
 * policy let run as a read runs with the whole filesystem read-only except a private /tmp and the
 * session's spill folder, without network, IPC, its host's name or capabilities, and the kernel's
 * writable files read-only (sandbox-kernel.ts). Linux: bubblewrap (`bwrap`) when
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
import { existingDir, isUnder, realOrSelf } from "./sandbox-paths.ts"

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

/** Directories replaced by an empty private tmpfs: scratch space, and the sockets of /run (docker, agents, D-Bus). */
const MASKED = ["/tmp", "/run"]
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

/** The bwrap arguments before the shell's argv (the `--` included). */
export const bwrapArgs = (request: SandboxRequest, env: NodeJS.ProcessEnv = process.env): Array<string> => {
  const args = [...bwrapFixedArgs, ...(kernelArgs ??= kernelInterfaceArgs())]
  const visible = [...new Set([request.cwd, ...request.readable])]
  for (const masked of MASKED) {
    // A workspace that is /tmp (or holds it, as `/` does) must not disappear behind the mask: /tmp then stays read-only.
    if (!existingDir(masked) || visible.some((dir) => isUnder(dir, masked))) continue
    args.push("--tmpfs", masked)
    // What the session reads that lies under a masked directory comes back read-only (a workspace in /tmp).
    const keep = [...visible, ...SYSTEM_KEPT].filter((dir) => isUnder(masked, dir) && dir !== masked && existingDir(dir))
    for (const dir of keep) args.push("--ro-bind", dir, dir)
  }
  for (const dir of request.writable) if (existingDir(dir)) args.push("--bind", dir, dir)
  const tmpdir = env.TMPDIR
  if (tmpdir !== undefined && tmpdir !== "" && !isUnder("/tmp", path.resolve(tmpdir))) args.push("--setenv", "TMPDIR", "/tmp")
  args.push("--chdir", request.cwd, "--")
  return args
}

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
  if (status.kind === "bwrap") return { file: status.program, args: [...bwrapArgs(request), shell, ...shellArgs] }
  return { file: status.program, args: ["-p", seatbeltProfile(request), shell, ...shellArgs] }
}
