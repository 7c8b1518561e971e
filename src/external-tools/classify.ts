/**
 * The host's classification of an external tool call (SPEC X4, A1): at least write authority in
 * the workspace at medium risk, whatever the tool says of itself; `"approval": "always"` adds a
 * prompt requirement when the session takes the author's word for the set's source.
 */
import type { Classification } from "../approval/classification.ts"
import type { ToolContext } from "../tools/tool.ts"
import type { LoadableSet } from "./discover.ts"
import { authorAsks, type ExternalToolHost } from "./host.ts"
import type { ApprovalDeclaration } from "./manifest.ts"

export const externalClassification = (
  host: ExternalToolHost,
  set: Pick<LoadableSet, "name" | "source">,
  toolName: string,
  declaration: ApprovalDeclaration,
  what: string,
  _context: ToolContext
): Classification => ({
  risk: "medium",
  authority: "write",
  scope: "workspace",
  summary: `${toolName} (${set.source} tool set ${set.name}): ${what}`,
  paths: [],
  grantKey: `external:${set.source}:${set.name}:${toolName}`,
  ask: authorAsks(host, set.source, declaration) ? true : undefined
})
