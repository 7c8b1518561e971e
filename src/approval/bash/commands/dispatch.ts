/**
 * What Crystal knows about commands: which only read, which write (and which paths), which use the
 * network, which destroy data, which run other commands (wrappers, shells, interpreters, find
 * -exec, xargs) and which are never allowed. Anything not listed runs unknown code: execute, medium.
 */
import type { Analyzer, Call, Handler } from "../types.ts"
import { looksLikePath, parse, words, writeAll } from "../args.ts"
import { INTERPRETERS, PYTHON, SHELLS, alias, busybox, cd, commandBuiltin, crontab, date, deno, disk, env, evalBuiltin, flock, forbidden, high, hostname, initCommand, interpreterHandler, ipCommand, kill, mount, nice, open, parallel, popd, pushd, scriptCommand, service, settingCtl, shell, shutdown, source, su, sudo, sysctl, systemctl, system, timeCommand, timeout, tracer, trap, watch, wrapper, xargs } from "./exec.ts"
import { GREP_SPEC, NO_PATHS, READ_FILES, awk, chmod, chown, compressor, copyLike, csplit, dd, declaration, fdFind, find, grepLike, iconv, jq, link, mkdir, mkfifo, mktemp, noPaths, patch, read, readFiles, rg, rm, rmdir, shred, shuf, sort, split, tar, tee, touch, tree, truncate, uniq, unlink, unzip, xxd, yq, zip } from "./files.ts"
import { sed } from "./sed.ts"
import { git } from "./git.ts"
import { vetReadOnlyCall } from "./readonly.ts"
import { NETWORK, curl, docker, networkCommand, rsync, scp, ssh, wget } from "./network.ts"
import { bundle, cargo, conda, gem, goTool, make, npx, packageManager, pip, poetry, systemPackages, uv, uvx } from "./packages.ts"

export const dispatch = (a: Analyzer, call: Call): void => {
  const handler = HANDLERS.get(call.base) ?? patternHandler(call.base)
  if (handler !== undefined) {
    handler(a, call)
    // Fail closed: what the handler judged read-only stays so only when the allowlist agrees.
    if (a.frameAuthority === "read") vetReadOnlyCall(a, call)
    return
  }
  // Case-insensitive file systems (macOS) run `RM` as `rm`: judge it as both.
  const lower = call.base.toLowerCase()
  const folded = lower === call.base ? undefined : (HANDLERS.get(lower) ?? patternHandler(lower))
  unknown(a, call)
  if (folded !== undefined) folded(a, { ...call, base: lower })
}

/** Unknown code: execute, medium. Operands that look like paths still count for the scope. */
const unknown: Handler = (a, call) => {
  a.raise("medium", "execute")
  for (const arg of call.args) if (arg.value !== undefined && !arg.value.startsWith("-") && looksLikePath(arg.value)) a.read(arg)
}

// ---------------------------------------------------------------- the table

const HANDLERS = new Map<string, Handler>()
const register = (names: ReadonlyArray<string> | string, handler: Handler): void => {
  for (const name of typeof names === "string" ? [names] : names) HANDLERS.set(name, handler)
}

for (const [name, spec] of Object.entries(READ_FILES)) register(name, readFiles(spec))
for (const name of NO_PATHS) register(name, noPaths)
for (const name of NETWORK) register(name, networkCommand)
for (const name of SHELLS) register(name, shell)
for (const [name, spec] of Object.entries(INTERPRETERS)) register(name, interpreterHandler(spec))

register(["export", "declare", "typeset", "local", "readonly"], declaration)
register(["read"], read)
register(["grep", "egrep", "fgrep", "zgrep", "zegrep", "zfgrep", "rgrep", "ggrep"], grepLike(GREP_SPEC, ["-e", "--regexp", "-f", "--file"]))
register(["ag"], grepLike({ short: "GgABCmp", long: ["ignore", "ignore-dir", "depth", "file-search-regex", "path-to-ignore", "after", "before", "context", "max-count"] }, []))
register(["ack", "ack-grep"], grepLike({ short: "ABCmg", long: ["type", "after-context", "before-context", "context", "max-count", "ignore-dir", "ignore-file"] }, []))
register(["rg"], rg)
register(["fd", "fdfind"], fdFind)
register(["find", "gfind"], find)
register(["jq", "gojq", "jaq"], jq)
register(["yq"], yq)
register(["sort"], sort)
register(["uniq"], uniq)
register(["xxd"], xxd)
register(["tree"], tree)
register(["iconv"], iconv)
register(["shuf"], shuf)

register(["touch"], touch)
register(["mktemp"], mktemp)
register(["mkdir"], mkdir)
register(["rmdir"], rmdir)
register(["unlink"], unlink)
register(["rm", "grm", "trash", "trash-put"], rm)
register(["srm", "shred"], shred)
register(["truncate"], truncate)
register(["cp", "gcp"], copyLike("cp"))
register(["mv", "gmv"], copyLike("mv"))
register(["install", "ginstall"], copyLike("install"))
register(["ln", "gln"], copyLike("ln"))
register(["link"], link)
register(["mkfifo", "mknod"], mkfifo)
register(["chmod"], chmod)
register(["chown", "chgrp"], chown)
register(["chattr"], high("changes file attributes", "write"))
register(["setfacl"], (a, call) => writeAll(a, parse(call.args, { short: "mMxX", long: ["modify", "modify-file", "remove", "remove-file", "set", "set-file"] }).operands))
register(["dd"], dd)
register(["tee"], tee)
register(["patch"], patch)
register(["tar", "gtar", "bsdtar"], tar)
register(["unzip"], unzip)
register(["zip"], zip)
register(["gzip", "gunzip", "bzip2", "bunzip2", "xz", "unxz", "lzma", "unlzma", "zstd", "unzstd", "lz4", "unlz4", "lzip", "compress", "uncompress", "pigz", "unpigz", "brotli"], compressor)
register(["split"], split)
register(["csplit"], csplit)
register(["sed", "gsed"], sed)
register(["awk", "gawk", "mawk", "nawk"], awk)

register(["curl"], curl)
register(["wget", "wget2"], wget)
register(["ssh", "autossh"], ssh)
register(["scp"], scp)
register(["rsync"], rsync)

register(["npm", "pnpm", "yarn", "bun"], packageManager)
register(["npx", "pnpx", "bunx"], npx)
register(["pip", "pip3", "pipx"], pip)
register(["uv"], uv)
register(["uvx"], uvx)
register(["cargo"], cargo)
register(["go"], goTool)
register(["gem"], gem)
register(["bundle", "bundler"], bundle)
register(["poetry", "pdm", "hatch", "rye"], poetry)
register(["conda", "mamba", "micromamba"], conda)
register(
  ["apt", "apt-get", "aptitude", "apt-cache", "yum", "dnf", "zypper", "pacman", "apk", "brew", "port", "snap", "flatpak", "nix-env", "choco", "winget", "scoop", "dpkg", "rpm", "dpkg-query"],
  systemPackages
)
register(["make", "gmake"], make)
register(["docker", "podman", "nerdctl"], docker)
register(["deno"], deno)
register(["eval"], evalBuiltin)
register(["source", "."], source)
register(["trap"], trap)
register(["alias"], alias)

register(["sudo", "sudoedit"], sudo)
register(["doas", "pkexec", "run0"], wrapper({ short: "Cu" }, { floor: ["high", "runs with elevated privileges"], keep: true }))
register(["su"], su)
register(["env"], env)
register(["nice"], nice)
register(["ionice"], wrapper({ short: "cnpPu" }))
register(["time"], timeCommand)
register(["timeout", "gtimeout"], timeout)
register(["nohup", "setsid", "unbuffer", "chronic", "catchsegv", "dbus-run-session", "coproc", "builtin"], wrapper({}))
register(["stdbuf"], wrapper({ short: "ioe", long: ["input", "output", "error"] }))
register(["caffeinate"], wrapper({ short: "tw" }))
register(["taskset"], (a, call) => {
  const parsed = parse(call.args, { stopAtOperand: true })
  const command = parsed.has("-p", "--pid") ? [] : parsed.operands.slice(1)
  if (command.length > 0) a.invoke(command, call.keyPrefix, call.io)
})
register(["chrt"], (a, call) => {
  const parsed = parse(call.args, { stopAtOperand: true })
  if (parsed.operands.length > 1) a.invoke(parsed.operands.slice(1), call.keyPrefix, call.io)
})
register(["command"], commandBuiltin)
register(["exec"], wrapper({ short: "a" }))
register(["xargs", "gxargs"], xargs)
register(["watch"], watch)
register(["flock"], flock)
register(["strace", "ltrace", "valgrind"], tracer)
register(["script"], scriptCommand)
register(["parallel"], parallel)
register(["busybox"], busybox)

register(["git"], git)

register(["shutdown", "reboot", "halt", "poweroff"], shutdown)
register(["systemctl"], systemctl)
register(["init", "telinit"], initCommand)
register(["loginctl"], (a, call) => {
  if (call.args.some((arg) => ["poweroff", "reboot", "halt", "kexec", "suspend", "hibernate"].includes(arg.value ?? ""))) a.forbid("shuts down or restarts the machine")
  else if (call.args.some((arg) => ["terminate-session", "terminate-user", "kill-session", "kill-user", "lock-sessions"].includes(arg.value ?? ""))) a.system("ends sessions")
})
register(["kill"], kill)
register(["pkill", "killall", "skill", "slay"], system("stops processes"))
register(["killall5"], forbidden("signals every process"))
register(["crontab"], crontab)
register(["at", "batch", "atrm"], system("schedules commands"))
register(
  words(`
  mkfs mke2fs mkswap mkdosfs mkntfs newfs wipefs fdisk sfdisk cfdisk gdisk sgdisk cgdisk parted blkdiscard badblocks zpool
  cryptsetup diskutil hdparm e2fsck fsck resize2fs tune2fs debugfs
`),
  disk
)
register(["hostname"], hostname)
register(["date", "gdate"], date)
register(["timedatectl", "hostnamectl", "localectl"], settingCtl)
register(["sysctl"], sysctl)
register(["ip"], ipCommand)
register(["ifconfig", "route", "iwconfig", "nmcli"], (a, call) => {
  if (call.args.filter((arg) => !arg.value?.startsWith("-")).length > 1) a.system("changes network settings")
})
register(["mount", "umount", "swapon", "swapoff", "losetup"], mount)
register(["service"], service)
register(
  words(`
  chroot unshare nsenter iptables ip6tables nft ufw firewall-cmd pfctl modprobe insmod rmmod useradd userdel usermod adduser deluser
  groupadd groupdel groupmod passwd chpasswd chsh chfn visudo launchctl setcap csrutil spctl nvram bless kextload dscl security sshd
  update-grub grub-install efibootmgr
`),
  system("changes system configuration")
)
register(["cd", "chdir"], cd)
register(["pushd"], pushd)
register(["popd"], popd)
register(["open", "xdg-open", "gio", "start"], open)
register(["vim", "vi", "nvim", "nano", "emacs", "code", "subl", "ed", "ex"], (a) => a.raise("medium", "execute", "opens an editor"))

const patternHandler = (name: string): Handler | undefined => {
  if (/^python[0-9.]*$|^pypy[0-9.]*$/.test(name)) return interpreterHandler(PYTHON)
  if (/^pip[0-9.]*$/.test(name)) return pip
  if (/^(perl|ruby|php|lua)[0-9.]*$/.test(name)) {
    const base = name.replace(/[0-9.]+$/, "")
    const spec = INTERPRETERS[base]
    return spec === undefined ? undefined : interpreterHandler(spec)
  }
  if (/^mkfs\.|^mkfs_|^newfs_|^fsck\./.test(name)) return disk
  return undefined
}
