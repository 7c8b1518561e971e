/**
 * The baseline for the Responses adapter: one streamed response through the bare `openai` SDK, no
 * Crystal code. `baseURL` is what the SDK takes, e.g. `${fake.url}/v1` for the fake LLM server.
 * Like the adapter, it keeps one client per base URL and iterates the whole stream.
 */
import { OpenAI } from "openai"

const clients = new Map<string, OpenAI>()

const clientFor = (baseURL: string): OpenAI => {
  const known = clients.get(baseURL)
  if (known !== undefined) return known
  const client = new OpenAI({ apiKey: "sk-bench", baseURL, maxRetries: 0, logLevel: "off" })
  clients.set(baseURL, client)
  return client
}

/** Streams one answer to `prompt` and returns how many text characters arrived. */
export const consumeWithSdk = async (baseURL: string, model: string, prompt: string): Promise<number> => {
  const events = await clientFor(baseURL).responses.create({ model, input: prompt, store: false, stream: true })
  let characters = 0
  for await (const event of events) {
    if (event.type === "response.output_text.delta") characters += event.delta.length
  }
  return characters
}
