/** What slash commands get from the app: the session host, the dialogs, a place to print, the way out. */
import type * as Effect from "effect/Effect"
import type { SessionHostShape } from "../../../layers/session-host.ts"
import type { Palette } from "../../terminal/colors.ts"
import type { CommandContext } from "../commands.ts"
import type { Dialogs } from "../dialogs.ts"
import { recap } from "../recap.ts"
import { switchedTo } from "./announce.ts"
import type { LiveRegion } from "./live.ts"
import type { Store } from "./store.ts"
import { workspaceInputs } from "./workspace.ts"

export interface CommandContextParts {
  readonly host: SessionHostShape
  readonly dialogs: Dialogs
  readonly store: Store
  readonly live: LiveRegion
  readonly palette: Palette
  readonly columns: () => number
  readonly disabledTools: ReadonlyArray<string>
  readonly exit: Effect.Effect<void>
}

export const makeCommandContext = ({ host, dialogs, store, live, palette, columns, disabledTools, exit }: CommandContextParts): CommandContext => ({
  get controls() {
    return host.current().session.controls
  },
  print: live.commit,
  palette,
  exit,
  disabledTools,
  host,
  // The status line follows once the command has ended (the app reads it after every command).
  switched: (active, how) => {
    const doc = active.prepared.document
    if (doc.workspace !== store.get().workspace) store.update({ _tag: "WorkspaceChanged", ...workspaceInputs(active.prepared.paths.home, doc.workspace) })
    live.commit(switchedTo(active, how, palette))
    if (how === "resume") live.commit(recap(doc.items, palette, columns()))
  },
  pickSession: dialogs.pickSession,
  pickWorkspace: dialogs.pickWorkspace,
  sessionId: () => host.current().prepared.document.id,
  workspace: () => store.get().workspace,
  mcp: () => host.current().session.mcp
})
