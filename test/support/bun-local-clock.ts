/// <reference types="bun" />
/**
 * Run with Bun (test/unit/prompts/local-clock.test.ts spawns it, TZ set): for each instant given
 * as epoch milliseconds on argv, the offset src/prompts/local-clock.ts finds, and the one Date
 * finds, as JSON, with the source local-clock.ts used.
 */
import { localClockSource, localOffsetMinutes } from "../../src/prompts/local-clock.ts"
import { localTime } from "../../src/prompts/values.ts"

const instants = process.argv.slice(2).map(Number)
const rows = instants.map((ms) => {
  const now = new Date(ms)
  return { ms, offset: localOffsetMinutes(now), dateOffset: -now.getTimezoneOffset(), time: localTime(now), hours: now.getHours(), date: now.getDate() }
})
console.log(JSON.stringify({ source: localClockSource(), rows }))
