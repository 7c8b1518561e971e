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
import { killLeftoversNow, killTreesNow, type KillOptions } from "./process-table.ts"

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
  trackLeader,
  type KillOptions
} from "./process-table.ts"

/**
 * Kills the trees of `leaders` together (process-table.ts's killTreesNow: SIGTERM, up to
 * `graceMs`, SIGKILL). Never fails.
 *
 * Runs to its end even when interrupted, so that a cancelled caller cannot leave a tree
 * half-killed. Note: `Effect.interruptible` around the grace wait would be wrong here: inside the
 * finalizer of an interrupted fiber it ends the wait at once, turning every kill into an immediate
 * SIGKILL. The wait is bounded instead (grace + 2 s), and a second Ctrl+C that exits the process
 * is covered by the exit hook.
 */
export const killProcessTrees = (leaders: ReadonlyArray<number>, options: KillOptions): Effect.Effect<void> =>
  Effect.uninterruptible(Effect.promise(() => killTreesNow(leaders, options)))

/** Kills one tree; see killProcessTrees. */
export const killProcessTree = (leader: number, options: KillOptions): Effect.Effect<void> => killProcessTrees([leader], options)

/** After a shell exited by itself: kills whatever it left running (process-table.ts's killLeftoversNow). */
export const killLeftovers = (leader: number, options: KillOptions): Effect.Effect<void> =>
  Effect.uninterruptible(Effect.promise(() => killLeftoversNow(leader, options)))
