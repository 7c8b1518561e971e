/**
 * The baseline for the Gemini adapter: one streamed GenerateContent response through the bare
 * `@google/genai` SDK, no Crystal code. Like the adapter it keeps one client per server, uses the
 * Gemini API (not Vertex AI) with an explicit key, turns automatic continuation off and reads the
 * parts of every chunk to the end of the stream.
 */
import { GoogleGenAI } from "@google/genai"

const clients = new Map<string, GoogleGenAI>()

const clientFor = (baseURL: string): GoogleGenAI => {
  const known = clients.get(baseURL)
  if (known !== undefined) return known
  const client = new GoogleGenAI({ vertexai: false, apiKey: "gm-bench", httpOptions: { baseUrl: baseURL, apiVersion: "v1beta" } })
  clients.set(baseURL, client)
  return client
}

/** `baseURL` is the server root (the SDK adds /v1beta/models/...); returns the number of text characters received. */
export const consumeWithSdk = async (baseURL: string, model: string, prompt: string): Promise<number> => {
  const chunks = await clientFor(baseURL).models.generateContentStream({
    model,
    contents: [{ role: "user", parts: [{ text: prompt }] }],
    config: { maxOutputTokens: 8_192, automaticFunctionCalling: { disable: true }, automaticContinuation: false }
  })
  let characters = 0
  for await (const chunk of chunks) {
    for (const part of chunk.candidates?.[0]?.content?.parts ?? []) {
      if (part.thought !== true) characters += part.text?.length ?? 0
    }
  }
  return characters
}
