/**
 * The baseline for the turn-overhead benchmark: one streamed Anthropic Messages response through
 * the bare SDK, no Crystal code. Like the adapter it uses one client per server, no SDK retries, no
 * logging or tracing, and iterates the raw event stream to its end.
 */
import { Anthropic } from "@anthropic-ai/sdk"

const clients = new Map<string, Anthropic>()

const clientFor = (baseURL: string): Anthropic => {
  const known = clients.get(baseURL)
  if (known !== undefined) return known
  const client = new Anthropic({ apiKey: "sk-ant-bench", baseURL, maxRetries: 0, logLevel: "off", openTelemetry: false })
  clients.set(baseURL, client)
  return client
}

/** `baseURL` is the server root (the SDK adds /v1/messages); returns the number of text characters received. */
export const consumeWithSdk = async (baseURL: string, model: string, prompt: string): Promise<number> => {
  const events = await clientFor(baseURL).messages.create({
    model,
    max_tokens: 8_192,
    messages: [{ role: "user", content: prompt }],
    stream: true
  })
  let characters = 0
  for await (const event of events) {
    if (event.type === "content_block_delta" && event.delta.type === "text_delta") characters += event.delta.text.length
  }
  return characters
}
