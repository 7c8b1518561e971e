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
 * Residual limits: a process that double-forks and calls setsid leaves both the group and the
 * tree once its parent dies; and a crystal killed with SIGKILL runs no code at all, so its
 * children are orphaned (they keep running).
 */
import * as fs from "node:fs"
import * as Effect from "effect/Effect"

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
  try {
    process.kill(pid, 0)
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
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
  return { entries, children }
}

/** The processes of the tree a session leader started. */
class ProcessTree {
  /** Members seen so far, pid → start time: found again after their parent died. */
  private readonly known = new Map<number, string>()
  readonly leader: number

  constructor(leader: number) {
    this.leader = leader
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
      if (entry.sid === this.leader || entry.pgrp === this.leader) add(entry)
      else if (this.known.get(entry.pid) === entry.start) add(entry)
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
   * of every member (a member's group lies in the member's session, so it belongs to the tree).
   * Once only, because some programs take a second SIGTERM as "exit now, skip the clean-up".
   */
  signal(name: NodeJS.Signals, snapshot: Snapshot | undefined): void {
    const groups = new Set<number>([this.leader])
    if (snapshot !== undefined) {
      for (const entry of this.members(snapshot).values()) {
        if (!isProtected(entry.pgrp)) groups.add(entry.pgrp)
      }
    }
    for (const group of groups) signal(-group, name)
  }

  alive(snapshot: Snapshot | undefined): boolean {
    if (snapshot === undefined) return groupHasMembers(this.leader) || isProcessAlive(this.leader)
    return this.members(snapshot).size > 0
  }
}

/**
 * Leaders whose trees may still be alive. If the process exits before they were killed (a second
 * Ctrl+C, `process.exit`, an uncaught error), the exit hook SIGKILLs them synchronously: there is
 * no time for a grace period then, but nothing is left behind.
 */
const liveLeaders = new Set<number>()
let exitHookInstalled = false

const killAllOnExit = (): void => {
  const snapshot = takeSnapshot()
  for (const leader of liveLeaders) new ProcessTree(leader).signal("SIGKILL", snapshot)
  liveLeaders.clear()
}

/** Records a freshly spawned session leader as one to kill if the process exits first. */
export const trackLeader = (leader: number): void => {
  if (!exitHookInstalled) {
    exitHookInstalled = true
    process.on("exit", killAllOnExit)
  }
  liveLeaders.add(leader)
}

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
      const trees = leaders.map((leader) => new ProcessTree(leader)).filter((tree) => tree.alive(snapshot))
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
    }).pipe(Effect.ensuring(Effect.sync(() => leaders.forEach((leader) => liveLeaders.delete(leader)))))
  )

/** Kills one tree; see killProcessTrees. */
export const killProcessTree = (leader: number, options: KillOptions): Effect.Effect<void> => killProcessTrees([leader], options)

/**
 * After a shell exited by itself: kills whatever it left running in its group. The common case (a
 * group already empty) costs one `kill(-pgid, 0)`. Processes that left the group are not looked
 * for here (that needs a /proc scan, ~1 ms): a stop, timeout or cancel does look for them.
 */
export const killLeftovers = (leader: number, options: KillOptions): Effect.Effect<void> =>
  Effect.suspend(() => {
    if (!groupHasMembers(leader)) {
      liveLeaders.delete(leader)
      return Effect.void
    }
    return killProcessTree(leader, options)
  })
