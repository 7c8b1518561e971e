/** The colours of the terminal UI: picocolors, switched on or off once (NO_COLOR, TERM=dumb, not a TTY). */
import picocolors from "picocolors"

export type Palette = ReturnType<typeof picocolors.createColors>

export const makePalette = (enabled: boolean): Palette => picocolors.createColors(enabled)
