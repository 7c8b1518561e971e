/** Fake LLM servers for a test file: started on demand, all closed after each test. */
import { afterEach } from "vitest"
import { startFakeLlm, type FakeLlm } from "./fake-llm/server.ts"

export const useFakeServers = (): (() => Promise<FakeLlm>) => {
  const servers: Array<FakeLlm> = []
  afterEach(async () => {
    await Promise.all(servers.splice(0).map((server) => server.close()))
  })
  return async () => {
    const fake = await startFakeLlm()
    servers.push(fake)
    return fake
  }
}
