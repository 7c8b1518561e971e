import { openaiChat } from "./openai-chat.ts"
import type { WireProtocol } from "./protocol.ts"

/** Every protocol the fake server speaks; the first whose route matches answers. */
export const protocols: ReadonlyArray<WireProtocol> = [openaiChat]
