/** What the app reads from a workspace: its prompt history and slash commands now, its files for @ completion on first use. */
import { discoverCommands } from "../../prompts/command-files.ts"
import { builtinCommandNames } from "../commands.ts"
import { listWorkspaceFiles } from "../completion.ts"
import { historyFile, loadHistory, makeHistory } from "../history.ts"
import type { WorkspaceInputs } from "./state.ts"

export const workspaceInputs = (home: string, workspace: string): WorkspaceInputs => {
  const historyPath = historyFile(home, workspace)
  let files: ReadonlyArray<string> | undefined
  return {
    workspace,
    historyPath,
    history: makeHistory(loadHistory(historyPath)),
    files: () => (files ??= listWorkspaceFiles(workspace)),
    commands: discoverCommands(home, workspace, builtinCommandNames())
  }
}
