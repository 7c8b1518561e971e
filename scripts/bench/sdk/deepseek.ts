/**
 * One streamed answer through the bare `openai` SDK (no Crystal code) as the DeepSeek adapter
 * uses it, for the adapter benchmark. `baseURL` is where DeepSeek's routes live: on the fake
 * server that is `${fake.url}/deepseek` (the SDK appends /chat/completions). Iterates to the end.
 */
export const consumeWithSdk = async (baseURL: string, model: string, prompt: string): Promise<number> => {
  const { OpenAI } = await import("openai")
  const client = new OpenAI({ apiKey: "sk-bench", baseURL, maxRetries: 0, logLevel: "off" })
  const stream = await client.chat.completions.create({
    model,
    messages: [{ role: "user", content: prompt }],
    max_tokens: 8_192,
    stream: true,
    stream_options: { include_usage: true }
  })
  let characters = 0
  for await (const chunk of stream) characters += chunk.choices[0]?.delta.content?.length ?? 0
  return characters
}
