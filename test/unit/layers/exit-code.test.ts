import { describe, expect, it } from "vitest"
import { ExitCode, exitCode, signalExitCode } from "../../../layers/exit-code.ts"
import { ConfigError, NoModelConfigured } from "../../../src/config/errors.ts"
import { CommandRefused, CompactionFailed, ReviewFailed } from "../../../src/engine/errors.ts"
import { DirectoryError } from "../../../src/files/directories.ts"
import { SessionLocked } from "../../../src/session/lock.ts"
import { FenceError } from "../../../src/approval/path-fence.ts"

describe("exitCode", () => {
  it.each([
    [new ConfigError({ message: "x" }), ExitCode.usage],
    [new NoModelConfigured({ message: "x" }), ExitCode.usage],
    [new DirectoryError({ message: "x" }), ExitCode.usage],
    [new SessionLocked({ id: "s", pid: 1 }), ExitCode.busy],
    [new CommandRefused({ message: "x" }), ExitCode.failure],
    [new CompactionFailed({ message: "x" }), ExitCode.failure],
    [new ReviewFailed({ message: "x" }), ExitCode.failure],
    [new FenceError({ message: "x" }), ExitCode.failure]
  ])("%s → %i", (error, code) => {
    expect(exitCode(error)).toBe(code)
  })

  it("names the session and its holder when the session is locked", () => {
    expect(new SessionLocked({ id: "20261201-abcd", pid: 42 }).message).toBe(
      "session 20261201-abcd is open in another crystal process (pid 42); close it there first, or start a new session"
    )
  })

  it("maps SIGTERM to 143 and SIGINT to 130", () => {
    expect(signalExitCode("SIGTERM")).toBe(143)
    expect(signalExitCode("SIGINT")).toBe(130)
  })
})
