import type { ModelEntry } from "../../src/providers/catalog.ts"

/** "local/m" over Chat Completions at `serverURL` (a fake LLM server's url; nothing listens by default). */
export const localModel = (serverURL = "http://127.0.0.1:1", imageInput = false): ModelEntry => ({
  ref: "local/m",
  id: "m",
  provider: { name: "local", protocol: "openai-chat", baseURL: `${serverURL}/v1`, apiKeyEnv: [], headers: {} },
  capabilities: { contextWindow: 32768, maxOutputTokens: 1024, imageInput, reasoning: false },
  listed: true
})
