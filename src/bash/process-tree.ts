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
import * as Effect from "effect/Effect"
import { forget, groupHasMembers, tags, takeSnapshot, treeOf, type ProcessTree } from "./process-table.ts"

export {
  CONTAIN_VAR,
  forgetLeader,
  groupHasMembers,
  instancePrefix,
  isProcessAlive,
  killEverythingNow,
  markSubreaper,
  nextTag,
  ownStart,
  processStart,
  taggedProcesses,
  trackedLeaders,
  trackLeader
} from "./process-table.ts"

const POLL_MS = 20
/** After SIGKILL, how long to wait for the kernel to finish the processes off. */
const KILL_WAIT_MS = 2000

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
