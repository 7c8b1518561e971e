/**
 * The kernel's own files inside the sandbox. Crystal run as root keeps uid 0 in the sandbox, and
 * many files of /proc check only the file mode, not a capability: with the whole capability set
 * dropped, root could still write `/proc/sys/kernel/core_pattern` (a `|program` there runs as real
 * root, outside every namespace, on the next crash anywhere), `/proc/sys/kernel/hostname`,
 * `/proc/sysrq-trigger` (`c` crashes the machine) and most other sysctls. bwrap makes /proc/irq and
 * /proc/bus read-only after its --proc, but skips /proc/sys: proc refuses a write check on a sysctl
 * directory, which bwrap takes for "already read-only".
 *
 * So, after `--proc /proc`: the writable kernel interfaces are bound read-only again (the same
 * list Docker makes read-only), and what Docker masks is hidden (a file behind /dev/null, which
 * bwrap's nodev mount makes unopenable; a directory behind an empty read-only tmpfs): files that
 * root may write by mode alone (/proc/acpi, /proc/asound, /proc/latency_stats), and files that show
 * the whole machine across the sandbox's pid namespace (/proc/timer_list and /proc/sched_debug list
 * every task, /proc/keys the keys, /sys/firmware the firmware tables, powercap the energy counters
 * behind the Platypus side channel). Each only where it exists on this kernel: bwrap fails on a
 * missing source. A bind's source is the host's /proc, not the sandbox's new one; sysctls answer for
 * the namespaces of the process that reads them, so the view is the same.
 */
import * as fs from "node:fs"

/** Bound read-only over the sandbox's /proc. */
export const READ_ONLY_KERNEL_PATHS = ["/proc/sys", "/proc/sysrq-trigger", "/proc/irq", "/proc/bus", "/proc/fs"]

/** Files masked by /dev/null. */
export const MASKED_KERNEL_FILES = ["/proc/kcore", "/proc/keys", "/proc/timer_list", "/proc/timer_stats", "/proc/latency_stats", "/proc/sched_debug"]

/** Directories masked by an empty read-only tmpfs. */
export const MASKED_KERNEL_DIRS = ["/proc/acpi", "/proc/scsi", "/proc/asound", "/sys/firmware", "/sys/devices/virtual/powercap"]

type Kind = "file" | "dir" | undefined

const kindOf = (target: string): Kind => {
  try {
    return fs.statSync(target).isDirectory() ? "dir" : "file"
  } catch {
    return undefined
  }
}

/** bwrap arguments that go after `--proc /proc`; `kind` says what exists here (a test passes its own). */
export const kernelInterfaceArgs = (kind: (target: string) => Kind = kindOf): Array<string> => {
  const args: Array<string> = []
  for (const target of READ_ONLY_KERNEL_PATHS) if (kind(target) !== undefined) args.push("--ro-bind", target, target)
  for (const target of MASKED_KERNEL_FILES) if (kind(target) === "file") args.push("--ro-bind", "/dev/null", target)
  for (const target of MASKED_KERNEL_DIRS) if (kind(target) === "dir") args.push("--tmpfs", target, "--remount-ro", target)
  return args
}
