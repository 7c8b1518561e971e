/** The sandbox's arguments and notes, as data (the real runs are sandbox-writes and sandbox-kill). */
import * as fs from "node:fs"
import * as os from "node:os"
import * as path from "node:path"
import { describe, expect, it, onTestFinished } from "vitest"
import { sandboxStartNote } from "../../../src/bash/sandbox-detect.ts"
import { kernelInterfaceArgs } from "../../../src/bash/sandbox-kernel.ts"
import { bwrapArgs, seatbeltProfile } from "../../../src/bash/sandbox.ts"
import { tempDir } from "../../support/temp.ts"

describe("bwrap arguments", () => {
  it("drop every capability and unshare network, IPC, pids and the host name, and end with the working directory", async () => {
    const args = bwrapArgs({ mode: "read-only", cwd: "/", readable: [], writable: [] }, {})
    expect(args.slice(0, 3)).toEqual(["--ro-bind", "/", "/"])
    for (const flag of ["--unshare-net", "--unshare-ipc", "--unshare-pid", "--unshare-uts", "--die-with-parent", "--proc"]) expect(args).toContain(flag)
    expect(args.join(" ")).toContain("--cap-drop ALL")
    expect(args.slice(-3)).toEqual(["--chdir", "/", "--"])
  })

  it("mask /tmp with a private tmpfs but bring back, read-only, what the session reads there; bind the spill folder writable", async () => {
    const root = await tempDir()
    const workspace = path.join(root, "ws")
    const spill = path.join(root, "spill")
    fs.mkdirSync(workspace)
    fs.mkdirSync(spill)
    const args = bwrapArgs({ mode: "read-only", cwd: workspace, readable: [workspace, spill, "/usr/share"], writable: [spill, path.join(root, "missing")] }, {})
    const text = args.join(" ")
    expect(text).toContain(`--tmpfs /tmp --ro-bind ${workspace} ${workspace} --ro-bind ${spill} ${spill}`)
    expect(text).not.toContain("--ro-bind /usr/share")
    expect(text).toContain(`--bind ${spill} ${spill}`)
    expect(text).not.toContain("missing")
    expect(args.indexOf("--bind")).toBeGreaterThan(args.indexOf(`--ro-bind`, 3))
  })

  it("leave /tmp unmasked (and read-only) when the workspace is /tmp or holds it", () => {
    for (const cwd of ["/tmp", "/"]) {
      const args = bwrapArgs({ mode: "read-only", cwd, readable: [cwd], writable: [] }, {})
      expect(args.join(" "), cwd).not.toContain("--tmpfs /tmp")
    }
    expect(bwrapArgs({ mode: "read-only", cwd: "/tmp", readable: ["/tmp"], writable: [] }, {}).join(" ")).toContain("--tmpfs /run")
  })

  it("mask /var/tmp and the home's .docker, .gnupg and .ssh (by real path) unless the workspace holds them", async () => {
    // Outside /tmp, whose mask would cover them anyway.
    const home = fs.mkdtempSync(path.join(os.homedir(), ".crystal-test-home-"))
    onTestFinished(() => fs.rmSync(home, { recursive: true, force: true }))
    for (const name of [".docker", ".gnupg", ".ssh"]) fs.mkdirSync(path.join(home, name))
    fs.mkdirSync(path.join(home, "elsewhere"))
    fs.rmdirSync(path.join(home, ".gnupg"))
    fs.symlinkSync(path.join(home, "elsewhere"), path.join(home, ".gnupg"))
    const text = bwrapArgs({ mode: "read-only", cwd: "/", readable: [], writable: [] }, { HOME: home }).join(" ")
    // `/` as the workspace holds every one of them: nothing is masked.
    expect(text).not.toMatch(/--tmpfs \/(tmp|var\/tmp|run) /)
    expect(text).not.toContain(`--tmpfs ${home}`)
    const workspace = await tempDir()
    const masked = bwrapArgs({ mode: "read-only", cwd: workspace, readable: [workspace], writable: [] }, { HOME: home }).join(" ")
    expect(masked).toContain("--tmpfs /var/tmp")
    expect(masked).toContain(`--tmpfs ${home}/.docker --tmpfs ${home}/elsewhere --tmpfs ${home}/.ssh`)
    expect(bwrapArgs({ mode: "read-only", cwd: home, readable: [home], writable: [] }, { HOME: home }).join(" ")).not.toContain(`--tmpfs ${home}`)
  })

  it("bind /dev/null over the sockets to hide, before the working directory", () => {
    const args = bwrapArgs({ mode: "read-only", cwd: "/", readable: [], writable: [] }, {}, ["/srv/a.sock", "/home/u/b.sock"])
    expect(args.slice(-9)).toEqual(["--ro-bind", "/dev/null", "/srv/a.sock", "--ro-bind", "/dev/null", "/home/u/b.sock", "--chdir", "/", "--"])
  })

  it("bind the kernel's writable files read-only and mask what Docker masks, each only where it exists", () => {
    const present = new Map<string, "file" | "dir">([
      ["/proc/sys", "dir"],
      ["/proc/sysrq-trigger", "file"],
      ["/proc/kcore", "file"],
      ["/proc/acpi", "dir"],
      ["/sys/firmware", "dir"],
      // A file where a directory is expected (or the reverse) is left alone.
      ["/proc/keys", "dir"],
      ["/proc/scsi", "file"]
    ])
    expect(kernelInterfaceArgs((target) => present.get(target)).join(" ")).toBe(
      [
        "--ro-bind /proc/sys /proc/sys",
        "--ro-bind /proc/sysrq-trigger /proc/sysrq-trigger",
        "--ro-bind /dev/null /proc/kcore",
        "--tmpfs /proc/acpi --remount-ro /proc/acpi",
        "--tmpfs /sys/firmware --remount-ro /sys/firmware"
      ].join(" ")
    )
    const args = bwrapArgs({ mode: "read-only", cwd: "/", readable: [], writable: [] }, {})
    // After the new /proc: before it, they would be covered by it.
    expect(args.indexOf("/proc/sys")).toBeGreaterThan(args.indexOf("--proc"))
  })

  it("point TMPDIR at the private /tmp when it named another directory", () => {
    const request = { mode: "read-only", cwd: "/", readable: [], writable: [] } as const
    expect(bwrapArgs(request, { TMPDIR: "/var/cache/tmp" }).join(" ")).toContain("--setenv TMPDIR /tmp")
    expect(bwrapArgs(request, { TMPDIR: "/tmp/user" }).join(" ")).not.toContain("--setenv")
  })
})

describe("the macOS profile", () => {
  it("denies writes and the network, allowing the temporary and spill folders, with quotes escaped", () => {
    const profile = seatbeltProfile({ mode: "read-only", cwd: "/w", readable: [], writable: ['/sp"ill'] }, {})
    expect(profile.split("\n").slice(0, 4)).toEqual(["(version 1)", "(allow default)", "(deny network*)", "(deny file-write*)"])
    expect(profile).toContain('(subpath "/private/tmp")')
    expect(profile).toContain('(subpath "/sp\\"ill")')
  })
})

describe("the session-start note", () => {
  it("says when there is no sandbox, and nothing when there is one", async () => {
    expect(sandboxStartNote("linux", "/nonexistent")).toBe(
      "no OS sandbox: bubblewrap (bwrap) is not installed, so the shell commands the approval policy lets run as reads are kept in bounds by the command classifier alone"
    )
    expect(sandboxStartNote("win32", "")).toMatch(/^no OS sandbox: there is no OS sandbox for win32/)
    const bin = await tempDir()
    fs.writeFileSync(path.join(bin, "bwrap"), "#!/bin/sh\n", { mode: 0o755 })
    expect(sandboxStartNote("linux", `relative/dir${path.delimiter}${bin}`)).toBeUndefined()
  })
})
