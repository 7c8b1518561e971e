/**
 * The baseline for the Chat Completions adapter: one streamed response through the bare `openai`
 * SDK, no Crystal code. `baseURL` is what the SDK takes, e.g. `${fake.url}/v1` for the fake LLM
 * server. Like the adapter, it keeps one client per base URL, asks for usage and iterates the
 * whole stream.
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
  const chunks = await clientFor(baseURL).chat.completions.create({
    model,
    messages: [{ role: "user", content: prompt }],
    stream: true,
    stream_options: { include_usage: true }
  })
  let characters = 0
  for await (const chunk of chunks) characters += chunk.choices[0]?.delta.content?.length ?? 0
  return characters
}
