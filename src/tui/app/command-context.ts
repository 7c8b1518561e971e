/** What slash commands get from the app: the session host, the dialogs, a place to print, the way out. */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type { Session } from "../../../layers/session.ts"
import type { SessionHostShape } from "../../../layers/session-host.ts"
import type { Palette } from "../../terminal/colors.ts"
import type { CommandContext } from "../commands.ts"
import type { Dialogs } from "../dialogs.ts"
import { recap } from "../recap.ts"
import { redactText } from "../../secrets/redact.ts"
import { Redactor } from "../../secrets/redactor.ts"
import { switchedTo } from "./announce.ts"
import type { LiveRegion } from "./live.ts"
import { promptTurn } from "./session-work.ts"
import type { TurnView } from "../turn-view.ts"
import type * as Scope from "effect/Scope"
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
  readonly view: TurnView
  /** The app's scope: a turn's background title request runs in it. */
  readonly scope: Scope.Scope
  /** Reads the status line again (after the background title request: its cost changes the total). */
  readonly refreshStatus: Effect.Effect<void>
}

/**
 * Commits lines with the session's secrets redacted: what a command prints can quote the model (a
 * side answer, the todos, a title, a resumed session's recap).
 */
export const committing = (live: LiveRegion) => (session: Session, lines: ReadonlyArray<string>) => {
  const secrets = Effect.runSync(Context.get(session.services, Redactor).secrets)
  live.commit(lines.map((line) => redactText(secrets, line)))
}

export const makeCommandContext = ({ host, dialogs, store, live, palette, columns, disabledTools, exit, view, scope, refreshStatus }: CommandContextParts): CommandContext => {
  const commit = committing(live)
  return {
    get controls() {
      return host.current().session.controls
    },
    print: (lines) => commit(host.current().session, lines),
    palette,
    exit,
    disabledTools,
    host,
    // The status line follows once the command has ended (the app reads it after every command).
    switched: (active, how) => {
      const doc = active.prepared.document
      if (doc.workspace !== store.get().workspace) store.update({ _tag: "WorkspaceChanged", ...workspaceInputs(active.prepared.paths.home, doc.workspace) })
      commit(active.session, switchedTo(active, how, palette))
      if (how === "resume") commit(active.session, recap(doc.items, palette, columns()))
    },
    pickSession: dialogs.pickSession,
    pickWorkspace: dialogs.pickWorkspace,
    choose: dialogs.choose,
    sessionId: () => host.current().prepared.document.id,
    workspace: () => store.get().workspace,
    mcp: () => host.current().session.mcp,
    fileCommands: () => store.get().commands,
    turn: (input) => promptTurn(host, view, scope, input, refreshStatus)
  }
}
