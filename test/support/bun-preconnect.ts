/// <reference types="bun" />
/**
 * Run with Bun (test/unit/providers/preconnect.test.ts spawns it): warms the way to each base URL
 * on argv as start-up does (src/providers/preconnect.ts), then prints Bun's DNS cache counters as
 * JSON and stays until stdin closes, so the caller can watch its server for the connections.
 */
import { preconnectEarly } from "../../src/providers/preconnect.ts"

for (const baseURL of process.argv.slice(2)) preconnectEarly(baseURL)
console.log(JSON.stringify(Bun.dns.getCacheStats()))
process.stdin.resume()
process.stdin.on("end", () => process.exit(0))
