import { anthropic } from "./anthropic.ts"
import { deepseek } from "./deepseek.ts"
import { gemini } from "./gemini.ts"
import { ollama } from "./ollama.ts"
import { openaiChat } from "./openai-chat.ts"
import { openaiResponses } from "./openai-responses.ts"
import type { WireProtocol } from "./protocol.ts"

/** Every protocol the fake server speaks; the first whose route matches answers. */
export const protocols: ReadonlyArray<WireProtocol> = [openaiChat, openaiResponses, anthropic, ollama, deepseek, gemini]
