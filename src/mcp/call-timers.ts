/**
 * The toolTimeoutSeconds of one server's calls, kept by Crystal rather than by the SDK's request
 * timeout, because only Crystal knows when a call is waiting on the operator: while a request of
 * the server waits for an answer (an elicitation dialog, a sampling request: its approval and
 * the model's answer; both through `whileOperatorAnswers`), none of the server's calls counts down, and each starts its
 * full time again once the operator answered. Every progress notification restarts a call's time
 * too (`alive`).
 *
 * One timer per call and no work per notification: `alive` only moves the call's deadline, and a
 * timer that fires early (the deadline moved, or the server's calls were held) sets itself again
 * for what is left.
 */

/** Node and Bun fire a longer timeout at once (it overflows a signed 32-bit number of ms). */
const LONGEST_TIMER_MS = 2_147_483_647

export interface CallTimer {
  /** The server showed the call is alive (a progress notification): its time starts again. */
  readonly alive: () => void
  /** The call ended (a result, an error, a cancellation): its timer goes. */
  readonly stop: () => void
}

export interface ServerCalls {
  /** Times one call: `expire` runs once the call went `timeoutMs` without a sign of life while the server's calls were not held. */
  readonly start: (timeoutMs: number, expire: () => void) => CallTimer
  /**
   * Holds every call of the server (those running and those that start meanwhile) until the
   * returned function is called; holds nest. On the last release each call gets its full time again.
   */
  readonly hold: () => () => void
  /** `ask` (a request of the server the operator answers) with the server's calls held until it settles. */
  readonly whileOperatorAnswers: <A>(ask: () => Promise<A>) => Promise<A>
}

interface Call {
  readonly timeoutMs: number
  readonly expire: () => void
  deadline: number
  timer: ReturnType<typeof setTimeout> | undefined
}

export const makeServerCalls = (): ServerCalls => {
  const calls = new Set<Call>()
  let holds = 0

  const arm = (call: Call, ms: number) => {
    call.timer = setTimeout(() => fire(call), Math.min(Math.max(ms, 1), LONGEST_TIMER_MS))
  }
  const fire = (call: Call) => {
    call.timer = undefined
    // Held: the last release sets the timer again.
    if (!calls.has(call) || holds > 0) return
    const left = call.deadline - performance.now()
    if (left > 0) return arm(call, left)
    calls.delete(call)
    call.expire()
  }

  const hold = () => {
    holds++
    let released = false
    return () => {
      if (released) return
      released = true
      holds--
      if (holds > 0) return
      const now = performance.now()
      for (const call of calls) {
        call.deadline = now + call.timeoutMs
        if (call.timer === undefined) arm(call, call.timeoutMs)
      }
    }
  }

  return {
    start: (timeoutMs, expire) => {
      const call: Call = { timeoutMs, expire, deadline: performance.now() + timeoutMs, timer: undefined }
      calls.add(call)
      if (holds === 0) arm(call, timeoutMs)
      return {
        alive: () => {
          call.deadline = performance.now() + timeoutMs
        },
        stop: () => {
          calls.delete(call)
          if (call.timer !== undefined) clearTimeout(call.timer)
          call.timer = undefined
        }
      }
    },
    hold,
    whileOperatorAnswers: async (ask) => {
      const release = hold()
      try {
        return await ask()
      } finally {
        release()
      }
    }
  }
}
