/**
 * Which OS sandbox program this machine has, by a look at the file system only: cheap enough for
 * session start-up, which must not load node:child_process (sandbox.ts uses it to try bwrap once).
 */
import * as fs from "node:fs"
import * as path from "node:path"

export type SandboxStatus =
  | { readonly available: true; readonly kind: "bwrap" | "sandbox-exec"; readonly program: string }
  | { readonly available: false; readonly reason: string }

const findOnPath = (name: string, searchPath: string | undefined): string | undefined => {
  for (const dir of (searchPath ?? "").split(path.delimiter)) {
    if (dir === "" || !path.isAbsolute(dir)) continue
    const candidate = path.join(dir, name)
    try {
      fs.accessSync(candidate, fs.constants.X_OK)
      if (fs.statSync(candidate).isFile()) return candidate
    } catch {
      // not here
    }
  }
  return undefined
}

const SANDBOX_EXEC = "/usr/bin/sandbox-exec"

/** Which sandbox program exists, by a look at the file system only (cheap enough for start-up). */
export const locateSandbox = (platform: NodeJS.Platform, searchPath: string | undefined): SandboxStatus => {
  if (platform === "linux") {
    const bwrap = findOnPath("bwrap", searchPath)
    return bwrap === undefined
      ? { available: false, reason: "bubblewrap (bwrap) is not installed" }
      : { available: true, kind: "bwrap", program: bwrap }
  }
  if (platform === "darwin") {
    return fs.existsSync(SANDBOX_EXEC)
      ? { available: true, kind: "sandbox-exec", program: SANDBOX_EXEC }
      : { available: false, reason: `${SANDBOX_EXEC} is missing` }
  }
  return { available: false, reason: `there is no OS sandbox for ${platform}` }
}

/**
 * The note a session shows at start when no sandbox program exists, or undefined. A bwrap that is
 * installed but cannot create namespaces here (a container without user namespaces) is found out
 * on the first sandboxed call instead: telling needs a process start, which start-up does not pay.
 */
export const sandboxStartNote = (platform: NodeJS.Platform = process.platform, searchPath: string | undefined = process.env.PATH): string | undefined => {
  const status = locateSandbox(platform, searchPath)
  return status.available
    ? undefined
    : `no OS sandbox: ${status.reason}, so the shell commands the approval policy lets run as reads are kept in bounds by the command classifier alone`
}
