/// <reference types="bun" />
/**
 * The fake LLM server in a process of its own, so a benchmark's timings do not include the
 * server's work. Every request gets the reply in the JSON file argv[2]; prints its URL.
 */
import * as fs from "node:fs"
import { startFakeLlm } from "../../test/support/fake-llm/server.ts"
import type { ModelReply } from "../../test/support/fake-llm/reply.ts"

const reply = JSON.parse(fs.readFileSync(process.argv[2] ?? "", "utf8")) as ModelReply
const fake = await startFakeLlm()
const refill = () => fake.script(Array.from({ length: 1000 }, () => reply))
refill()
setInterval(() => {
  if (fake.remainingReplies() < 100) refill()
}, 50)
console.log(fake.url)
