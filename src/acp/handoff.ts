/** What the start-up path (./early.ts) hands the agent (./agent.ts): the input it began reading, and the request it answered. */
export const handoff: { input?: ReadableStream<Uint8Array>; answeredInitialize?: string | number } = {}
