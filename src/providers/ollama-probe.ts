/**
 * Auto-detection of a local Ollama (issue: "a reachable Ollama at OLLAMA_HOST or 127.0.0.1:11434"),
 * tried only when nothing else is configured or in the environment. One short request to its
 * model list; the first model it has becomes the default.
 */
const probeTimeoutMs = 300

export const defaultOllamaHost = "http://127.0.0.1:11434"

export const findLocalOllamaModel = async (baseURL: string): Promise<string | undefined> => {
  try {
    const response = await fetch(new URL("/api/tags", baseURL), { signal: AbortSignal.timeout(probeTimeoutMs) })
    if (!response.ok) return undefined
    const body = (await response.json()) as { readonly models?: ReadonlyArray<{ readonly name?: unknown }> } // Ollama's /api/tags shape
    const first = body.models?.find((model) => typeof model.name === "string")
    return typeof first?.name === "string" ? first.name : undefined
  } catch {
    return undefined
  }
}
