/**
 * The process table as Crystal reads it (/proc on Linux), with no Effect in it: the tags every
 * contained process carries, the trees of the leaders Crystal spawned, and the exit hook that
 * SIGKILLs them all synchronously. An MCP server spawned before the rest of Crystal loads
 * (src/mcp/early-servers.ts) is tracked through this module alone; process-tree.ts adds the
 * graceful kill (SIGTERM, grace, SIGKILL) on top and re-exports what is here.
 */
import * as fs from "node:fs"
import { processRuns } from "../files/process-alive.ts"


export interface ProcEntry {
  readonly pid: number
  readonly ppid: number
  readonly pgrp: number
  readonly sid: number
  readonly zombie: boolean
  /** Start time in clock ticks since boot: with the pid, identifies one process. */
  readonly start: string
}

const hasProc = process.platform === "linux" && fs.existsSync("/proc/self/stat")
const statBuffer = Buffer.allocUnsafe(1024)

const parseStat = (pid: number, text: string): ProcEntry | undefined => {
  // "pid (comm) state ppid pgrp session ... starttime(22nd field)"; comm may hold spaces and ")".
  const close = text.lastIndexOf(")")
  if (close < 0) return undefined
  const fields = text.slice(close + 2).split(" ", 20)
  const start = fields[19]
  if (start === undefined) return undefined
  return {
    pid,
    ppid: Number(fields[1]),
    pgrp: Number(fields[2]),
    sid: Number(fields[3]),
    zombie: fields[0] === "Z" || fields[0] === "X",
    start
  }
}

const readStat = (pid: number | "self"): ProcEntry | undefined => {
  let fd: number | undefined
  try {
    fd = fs.openSync(`/proc/${pid}/stat`, "r")
    const size = fs.readSync(fd, statBuffer, 0, statBuffer.length, 0)
    const text = statBuffer.toString("latin1", 0, size)
    return parseStat(pid === "self" ? Number(text.slice(0, text.indexOf(" "))) : pid, text)
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/** Every process in /proc (about 1 ms for a hundred processes). */
const readAllStats = (): Array<ProcEntry> => {
  const entries: Array<ProcEntry> = []
  let names: Array<string>
  try {
    names = fs.readdirSync("/proc")
  } catch {
    return entries
  }
  for (const name of names) {
    const first = name.charCodeAt(0)
    if (first < 48 || first > 57) continue
    const entry = readStat(Number(name))
    if (entry !== undefined) entries.push(entry)
  }
  return entries
}

/** Our own process group and session: never signalled, whatever /proc says. */
const own = hasProc ? readStat("self") : undefined

/** This process's start time: with its pid, names this crystal among all that ever ran here. */
export const ownStart: string = own?.start ?? String(Date.now())

/** The environment variable every contained process carries: `<crystal pid>.<its start>.<n>`. */
export const CONTAIN_VAR = "CRYSTAL_CONTAIN"

/** What the tags of this crystal's processes start with (`<pid>.<start>.`). */
export const instancePrefix = (pid: number = process.pid, start: string = ownStart): string => `${pid}.${start}.`

let tagSequence = 0

/** A new tag for one spawned shell. */
export const nextTag = (): string => `${instancePrefix()}${++tagSequence}`

/** The environment for one spawned process and its tag. */
export const taggedEnvironment = (env: NodeJS.ProcessEnv): { readonly env: NodeJS.ProcessEnv; readonly tag: string } => {
  const tag = nextTag()
  return { env: { ...env, [CONTAIN_VAR]: tag }, tag }
}

const environBuffer = Buffer.allocUnsafe(256 * 1024)

const tagNeedle = Buffer.from(`${CONTAIN_VAR}=`, "latin1")

/**
 * The CRYSTAL_CONTAIN value in the process's environment, followed by NUL (so that a whole tag
 * can be matched as a prefix); undefined without one, or for a process we may not read (gone, a
 * zombie, another user's).
 */
const readTag = (pid: number): string | undefined => {
  let fd: number | undefined
  try {
    fd = fs.openSync(`/proc/${pid}/environ`, "r")
    const size = fs.readSync(fd, environBuffer, 0, environBuffer.length, 0)
    const environ = environBuffer.subarray(0, size)
    for (let at = environ.indexOf(tagNeedle); at >= 0; at = environ.indexOf(tagNeedle, at + 1)) {
      if (at > 0 && environ[at - 1] !== 0) continue
      const start = at + tagNeedle.length
      const end = environ.indexOf(0, start)
      return `${environ.toString("latin1", start, end < 0 ? size : end)}\u0000`
    }
    return undefined
  } catch {
    return undefined
  } finally {
    if (fd !== undefined) fs.closeSync(fd)
  }
}

/** Start time (clock ticks since boot) of a living process, or undefined. */
export const processStart = (pid: number): string | undefined => {
  const entry = hasProc ? readStat(pid) : undefined
  return entry === undefined || entry.zombie ? undefined : entry.start
}

/** Pids of living processes whose tag starts with `prefix` and that started at `minStart` or later. */
export const taggedProcesses = (prefix: string, minStart: bigint): Array<number> =>
  readAllStats()
    .filter((entry) => {
      if (entry.zombie || isProtected(entry.pid) || BigInt(entry.start) < minStart) return false
      return readTag(entry.pid)?.startsWith(prefix) === true
    })
    .map((entry) => entry.pid)

const isProtected = (pid: number): boolean => pid <= 1 || pid === process.pid || pid === own?.pgrp || pid === own?.sid

const signal = (target: number, name: NodeJS.Signals): void => {
  try {
    process.kill(target, name)
  } catch {
    // ESRCH: already gone; EPERM: not ours to signal (e.g. a setuid program).
  }
}

/** Is a process (not a zombie) with this pid alive? */
export const isProcessAlive = (pid: number): boolean => {
  if (!processRuns(pid)) return false
  if (!hasProc) return true
  const entry = readStat(pid)
  return entry !== undefined && !entry.zombie
}

/** Does any process (zombies included) remain in the group `pgid`? A cheap check, no /proc. */
export const groupHasMembers = (pgid: number): boolean => {
  try {
    process.kill(-pgid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}

export interface Snapshot {
  readonly entries: ReadonlyArray<ProcEntry>
  readonly children: ReadonlyMap<number, ReadonlyArray<ProcEntry>>
  /** Does `pid` carry a tag starting with `prefix`? Each environment is read once per snapshot, only when asked. */
  readonly tagged: (pid: number, prefix: string) => boolean
}

/** One read of /proc, shared by every tree being killed at the same time; undefined without /proc. */
export const takeSnapshot = (): Snapshot | undefined => {
  if (!hasProc) return undefined
  const entries = readAllStats()
  const children = new Map<number, Array<ProcEntry>>()
  for (const entry of entries) {
    const siblings = children.get(entry.ppid)
    if (siblings === undefined) children.set(entry.ppid, [entry])
    else siblings.push(entry)
  }
  const tagByPid = new Map<number, string | undefined>()
  const tagged = (pid: number, prefix: string): boolean => {
    let tag = tagByPid.get(pid)
    if (!tagByPid.has(pid)) {
      tag = readTag(pid)
      tagByPid.set(pid, tag)
    }
    return tag !== undefined && tag.startsWith(prefix)
  }
  return { entries, children, tagged }
}

/** The processes of the tree a session leader started, and those carrying its tag. */
export class ProcessTree {
  /** Members seen so far, pid → start time: found again after their parent died. */
  private readonly known = new Map<number, string>()
  /** Undefined for a shell that already exited and was reaped: its pid may be anyone's now. */
  readonly leader: number | undefined
  /** Members also are the processes whose tag starts with this (a whole tag ends with NUL). */
  readonly tag: string | undefined
  /** The leader's start time: no process that started earlier is its descendant. */
  readonly minStart: bigint

  constructor(leader: number | undefined, tag: string | undefined, minStart = 0n) {
    this.leader = leader
    this.tag = tag
    this.minStart = minStart
  }

  /** The living members (zombies excluded) in `snapshot`, remembered for later snapshots. */
  private members(snapshot: Snapshot): ReadonlyMap<number, ProcEntry> {
    const members = new Map<number, ProcEntry>()
    const queue: Array<ProcEntry> = []
    const add = (entry: ProcEntry): void => {
      if (members.has(entry.pid) || isProtected(entry.pid)) return
      members.set(entry.pid, entry)
      queue.push(entry)
    }
    for (const entry of snapshot.entries) {
      if (this.leader !== undefined && (entry.sid === this.leader || entry.pgrp === this.leader)) add(entry)
      else if (this.known.get(entry.pid) === entry.start) add(entry)
      // Only a process started after the leader can carry its tag: older ones are not read at all.
      else if (this.tag !== undefined && !entry.zombie && BigInt(entry.start) >= this.minStart && snapshot.tagged(entry.pid, this.tag)) add(entry)
    }
    for (let index = 0; index < queue.length; index++) {
      for (const child of snapshot.children.get(queue[index]!.pid) ?? []) add(child)
    }
    this.known.clear()
    const living = new Map<number, ProcEntry>()
    for (const entry of members.values()) {
      if (entry.zombie) continue
      this.known.set(entry.pid, entry.start)
      living.set(entry.pid, entry)
    }
    return living
  }

  /**
   * Sends `name` once to every living member, by process group: the leader's group and the group
   * of every member (a member's group lies in the member's session, so it belongs to the tree) —
   * except a group that is not the tree's own (a tagged process that called setpgid into some
   * other group is signalled alone). Once only, because some programs take a second SIGTERM as
   * "exit now, skip the clean-up".
   */
  signal(name: NodeJS.Signals, snapshot: Snapshot | undefined): void {
    const groups = new Set<number>(this.leader === undefined ? [] : [this.leader])
    if (snapshot !== undefined) {
      const members = this.members(snapshot)
      for (const entry of members.values()) {
        if (isProtected(entry.pgrp)) signal(entry.pid, name)
        else if (members.has(entry.pgrp) || entry.pgrp === this.leader) groups.add(entry.pgrp)
        else signal(entry.pid, name)
      }
    }
    for (const group of groups) signal(-group, name)
  }

  alive(snapshot: Snapshot | undefined): boolean {
    if (snapshot === undefined) return this.leader !== undefined && (groupHasMembers(this.leader) || isProcessAlive(this.leader))
    return this.members(snapshot).size > 0
  }
}

/** Tags of the tracked leaders and their start times, by leader pid. */
export const tags = new Map<number, { readonly tag: string; readonly start: bigint }>()

export const treeOf = (leader: number): ProcessTree => {
  const tagged = tags.get(leader)
  // The whole tag, NUL included: tag …1 must not take in …12's processes.
  return tagged === undefined ? new ProcessTree(leader, undefined) : new ProcessTree(leader, `${tagged.tag}\u0000`, tagged.start)
}

export const forget = (leader: number): void => {
  liveLeaders.delete(leader)
  tags.delete(leader)
}

/**
 * Leaders whose trees may still be alive. If the process exits before they were killed (a second
 * Ctrl+C, `process.exit`, an uncaught error), the exit hook SIGKILLs them synchronously: there is
 * no time for a grace period then, but nothing is left behind. The hook also kills every process
 * carrying this crystal's tag, and (once we are a subreaper) every descendant of ours.
 */
const liveLeaders = new Set<number>()
let exitHookInstalled = false
let killDescendantsOnExit = false

/** Called once the process is a child subreaper: orphans of its trees are then its children. */
export const markSubreaper = (): void => {
  killDescendantsOnExit = true
}

/** Every living descendant of this process, in `snapshot`. */
const descendants = (snapshot: Snapshot): Array<ProcEntry> => {
  const found: Array<ProcEntry> = []
  const queue = [process.pid]
  for (let index = 0; index < queue.length; index++) {
    for (const child of snapshot.children.get(queue[index]!) ?? []) {
      if (child.pid === process.pid) continue
      found.push(child)
      queue.push(child.pid)
    }
  }
  return found.filter((entry) => !entry.zombie)
}

/** SIGKILLs, synchronously, whatever this crystal started that is still alive. */
export const killEverythingNow = (): void => {
  if (!hasProc) {
    for (const leader of liveLeaders) signal(-leader, "SIGKILL")
    liveLeaders.clear()
    return
  }
  for (let round = 0; round < 3; round++) {
    const snapshot = takeSnapshot()
    if (snapshot === undefined) return
    for (const leader of liveLeaders) treeOf(leader).signal("SIGKILL", snapshot)
    const instance = new ProcessTree(undefined, instancePrefix())
    instance.signal("SIGKILL", snapshot)
    if (killDescendantsOnExit) for (const entry of descendants(snapshot)) signal(entry.pid, "SIGKILL")
    // A fork racing the first pass can still appear; look again while anything was found.
    const next = takeSnapshot()
    if (next === undefined || (!instance.alive(next) && (!killDescendantsOnExit || descendants(next).length === 0))) break
  }
  liveLeaders.clear()
}

/** Records a freshly spawned session leader (and its environment tag) as one to kill if the process exits first. */
export const trackLeader = (leader: number, tag?: string): void => {
  if (!exitHookInstalled) {
    exitHookInstalled = true
    process.on("exit", killEverythingNow)
  }
  liveLeaders.add(leader)
  if (tag !== undefined) tags.set(leader, { tag, start: BigInt(processStart(leader) ?? "0") })
}

/** Stops tracking a leader known to be dead, without the /proc scan killLeftovers does (run-argv.ts). */
export const forgetLeader = (leader: number): void => forget(leader)

/** Leaders tracked and not yet known to be dead (for tests and diagnostics). */
export const trackedLeaders = (): ReadonlySet<number> => liveLeaders
