/**
 * One streamed answer through the bare `ollama` SDK (no Crystal code), for the adapter benchmark.
 * `baseURL` is the fake server's root (the SDK appends /api/chat). The same build as the adapter
 * (ollama/browser), the same request options; iterates the stream to the end.
 */
export const consumeWithSdk = async (baseURL: string, model: string, prompt: string): Promise<number> => {
  const { Ollama } = await import("ollama/browser")
  const client = new Ollama({ host: baseURL })
  const stream = await client.chat({
    model,
    messages: [{ role: "user", content: prompt }],
    options: { num_ctx: 32_768, num_predict: 8_192 },
    stream: true
  })
  let characters = 0
  for await (const part of stream) characters += part.message.content.length
  return characters
}
