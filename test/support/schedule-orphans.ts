/// <reference types="bun" />
/**
 * Run with Bun (test/unit/files/orphaned-temps.test.ts spawns it): schedules the removal of the
 * orphaned temp files of the folder argv[2] with a timer far away, then exits at once, so only the
 * way out can remove them.
 */
import { scheduleOrphanedTempRemoval } from "../../src/files/orphaned-temps.ts"

scheduleOrphanedTempRemoval([process.argv[2] ?? ""], 600_000)
process.exit(0)
