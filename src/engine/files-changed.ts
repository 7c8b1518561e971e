import type { FileChange } from "../checkpoints/store.ts"
import { plural } from "../text/plural.ts"

/** "3 files changed (+12 −4)": the turn line's summary of a turn's checkpoint. */
export const filesChangedText = (files: ReadonlyArray<Pick<FileChange, "added" | "removed">>): string => {
  const added = files.reduce((sum, file) => sum + file.added, 0)
  const removed = files.reduce((sum, file) => sum + file.removed, 0)
  return `${plural(files.length, "file")} changed (+${added} −${removed})`
}
