/**
 * Scripts a fake model per agent (issue 26): children run concurrently, so their requests arrive
 * in no fixed order; each request is answered from the queue of the agent whose marker its
 * system text holds (the root's queue when none does).
 */
import type { FakeLlm, RecordedRequest, Reply, StaticReply } from "./server.ts"

/** The system text of a request in the protocols the e2e tests use (OpenAI chat, Anthropic, Responses). */
export const systemTextOf = (request: RecordedRequest): string => {
  const body = request.body as { messages?: ReadonlyArray<{ role?: string; content?: unknown }>; system?: unknown; instructions?: unknown } | undefined
  const system = body?.messages?.find((message) => message.role === "system" || message.role === "developer")?.content ?? body?.system ?? body?.instructions
  return typeof system === "string" ? system : JSON.stringify(system ?? "")
}

export interface AgentScripts {
  /** The root session's replies. */
  readonly root: ReadonlyArray<Reply>
  /** Replies by a marker the agent's system prompt holds. */
  readonly agents: Readonly<Record<string, ReadonlyArray<Reply>>>
}

/** Which queue answered each request, in order of arrival ("root" or the agent's marker). */
export const scriptByAgent = (fake: FakeLlm, scripts: AgentScripts): Array<string> => {
  const queues = new Map<string, Array<Reply>>([["root", [...scripts.root]], ...Object.entries(scripts.agents).map(([marker, replies]): [string, Array<Reply>] => [marker, [...replies]])])
  const answered: Array<string> = []
  const total = [...queues.values()].reduce((sum, queue) => sum + queue.length, 0)
  const route = async (request: RecordedRequest): Promise<StaticReply> => {
    const system = systemTextOf(request)
    const marker = Object.keys(scripts.agents).find((candidate) => system.includes(candidate)) ?? "root"
    answered.push(marker)
    const next = queues.get(marker)?.shift()
    if (next === undefined) return { kind: "error", status: 500, message: `fake-llm: no reply left for ${marker}` }
    return typeof next === "function" ? next(request) : next
  }
  fake.script(Array.from({ length: total }, () => route))
  return answered
}
