/**
 * Killing a shell's whole process tree. Every shell is spawned as the leader of a new session and
 * process group (`detached: true` = setsid), so `kill(-pid)` reaches everything it started that
 * stayed in its group. On Linux the tree is also read from /proc: every process of the leader's
 * session (jobs that `set -m` moved to their own group) and every descendant by parent pid
 * (children that called setsid; remembered by pid and start time, so they are still found after
 * their parent died and a recycled pid is never taken for one of them). Zombies count as dead: the
 * init process of a container may never reap them (this machine's does not).
 *
 * Kill = SIGTERM (+ SIGCONT, so a stopped process can act on it) to every process group holding a
 * member, once; wait up to the grace period for them to exit, SIGKILL whatever is left, then wait
 * (bounded) until it is gone. Killing many trees (the session closing) shares each /proc read.
 *
 * Every shell also carries a tag in its environment (CRYSTAL_CONTAIN, see containment.ts), which
 * its descendants inherit: a process that double-forked and called setsid has left both the group
 * and the tree, but still carries the tag, so it is found in /proc/PID/environ. What a process
 * started with a cleared environment (`env -i`) after leaving the tree is the one gap: the
 * compiled binary is a child subreaper (containment.ts), so such a process becomes our child and
 * the exit hook kills it with everything else that descends from us. docs/containment.md has the
 * whole picture, SIGKILL included.
 */
import * as fs from "node:fs"
import * as Effect from "effect/Effect"
import { processRuns } from "../files/process-alive.ts"

const POLL_MS = 20
/** After SIGKILL, how long to wait for the kernel to finish the processes off. */
const KILL_WAIT_MS = 2000

interface ProcEntry {
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

interface Snapshot {
  readonly entries: ReadonlyArray<ProcEntry>
  readonly children: ReadonlyMap<number, ReadonlyArray<ProcEntry>>
  /** Does `pid` carry a tag starting with `prefix`? Each environment is read once per snapshot, only when asked. */
  readonly tagged: (pid: number, prefix: string) => boolean
}

/** One read of /proc, shared by every tree being killed at the same time; undefined without /proc. */
const takeSnapshot = (): Snapshot | undefined => {
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
class ProcessTree {
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
const tags = new Map<number, { readonly tag: string; readonly start: bigint }>()

const treeOf = (leader: number): ProcessTree => {
  const tagged = tags.get(leader)
  // The whole tag, NUL included: tag …1 must not take in …12's processes.
  return tagged === undefined ? new ProcessTree(leader, undefined) : new ProcessTree(leader, `${tagged.tag}\u0000`, tagged.start)
}

const forget = (leader: number): void => {
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

/** Polls until every tree is dead or `ms` passed; gives the trees still alive. */
const waitUntilDead = (trees: ReadonlyArray<ProcessTree>, ms: number): Effect.Effect<ReadonlyArray<ProcessTree>> =>
  Effect.suspend(() => {
    const deadline = Date.now() + ms
    let pause = 5
    const poll = (remaining: ReadonlyArray<ProcessTree>): Effect.Effect<ReadonlyArray<ProcessTree>> =>
      Effect.suspend(() => {
        const left = Math.max(0, deadline - Date.now())
        const wait = Math.min(pause, left)
        pause = Math.min(POLL_MS, pause * 2)
        return Effect.sleep(wait).pipe(
          Effect.flatMap(() => {
            const snapshot = takeSnapshot()
            const alive = remaining.filter((tree) => tree.alive(snapshot))
            if (alive.length === 0 || Date.now() >= deadline) return Effect.succeed(alive)
            return poll(alive)
          })
        )
      })
    return poll(trees)
  })

export interface KillOptions {
  /** How long processes get after SIGTERM before SIGKILL. */
  readonly graceMs: number
}

/**
 * Kills the trees of `leaders` together (one /proc read per step for all of them): SIGTERM, up
 * to `graceMs` for them to exit, then SIGKILL. Completes when every process is gone (or, should
 * one survive SIGKILL — a process stuck in the kernel — after a bounded wait). Never fails.
 *
 * Runs to its end even when interrupted, so that a cancelled caller cannot leave a tree
 * half-killed. Note: `Effect.interruptible` around the grace wait would be wrong here: inside the
 * finalizer of an interrupted fiber it ends the wait at once, turning every kill into an immediate
 * SIGKILL. The wait is bounded instead (grace + 2 s), and a second Ctrl+C that exits the process
 * is covered by the exit hook.
 */
export const killProcessTrees = (leaders: ReadonlyArray<number>, options: KillOptions): Effect.Effect<void> =>
  Effect.uninterruptible(
    Effect.gen(function* () {
      const snapshot = takeSnapshot()
      const trees = leaders.map(treeOf).filter((tree) => tree.alive(snapshot))
      if (trees.length === 0) return
      for (const tree of trees) {
        tree.signal("SIGTERM", snapshot)
        tree.signal("SIGCONT", snapshot)
      }
      const stubborn = yield* waitUntilDead(trees, options.graceMs)
      if (stubborn.length === 0) return
      const before = takeSnapshot()
      for (const tree of stubborn) tree.signal("SIGKILL", before)
      const stuck = yield* waitUntilDead(stubborn, KILL_WAIT_MS)
      // A process in uninterruptible sleep (D state) dies when the kernel lets it; one last try.
      const last = takeSnapshot()
      for (const tree of stuck) tree.signal("SIGKILL", last)
    }).pipe(Effect.ensuring(Effect.sync(() => leaders.forEach(forget))))
  )

/** Kills one tree; see killProcessTrees. */
export const killProcessTree = (leader: number, options: KillOptions): Effect.Effect<void> => killProcessTrees([leader], options)

/**
 * After a shell exited by itself: kills whatever it left running — in its group, in its tree, or
 * anywhere with its tag (a `setsid -f` or double-fork escapee). With the group empty that costs
 * one /proc read (~1–3 ms for a few hundred processes): the price of "nothing it started
 * outlives it".
 */
export const killLeftovers = (leader: number, options: KillOptions): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (!groupHasMembers(leader) && (!tags.has(leader) || !treeOf(leader).alive(takeSnapshot()))) {
      forget(leader)
      return Effect.void
    }
    return killProcessTree(leader, options)
  })
