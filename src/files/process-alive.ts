/** Whether a process with this pid exists: what lock files and temp files are checked against. */
export const processRuns = (pid: number): boolean => {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    // EPERM: it runs, as someone else.
    return (error as NodeJS.ErrnoException).code === "EPERM"
  }
}
