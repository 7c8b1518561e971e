/** What the children started by a step's `task` calls cost (issue 26), by "provider/model". */
import type { SessionDocument } from "../session/document.ts"
import type { ToolCall, Usage } from "../session/items.ts"

export const childUsage = (doc: SessionDocument, calls: ReadonlyArray<ToolCall>): ReadonlyArray<readonly [string, Usage]> =>
  calls.flatMap((call) => Object.entries(doc.agents?.[call.id]?.usageByModel ?? {}))
