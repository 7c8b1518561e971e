/** Text from outside Crystal that tries to drive the terminal, and the check that it could not. */

/** OSC 0 (window title), OSC 52 (clipboard), CSI (erase, cursor up), a C1 CSI and a bare CR. */
export const hostile = "A\x1b]0;pwned\x07B\x1b]52;c;cHduZWQ=\x07C\x1b[2J\x1b[1AD\x9b2JE\rF"

/** How `hostile` reads once made inert (src/terminal/inert.ts). */
export const hostileShown = "A␛]0;pwned␇B␛]52;c;cHduZWQ=␇C␛[2J␛[1AD\\x9b2JE␍F"

/** Colour and style (SGR) sequences, the only escapes Crystal's own palette writes. */
const sgr = /\x1b\[[0-9;]*m/g

/** The control characters of `text` other than newline, tab and the palette's SGR sequences: none, if it is inert. */
export const controlsIn = (text: string): Array<string> => [...text.replace(sgr, "").matchAll(/[\x00-\x08\x0b-\x1f\x7f-\x9f]/g)].map((match) => match[0])

/** `text` without the palette's SGR sequences. */
export const withoutColours = (text: string): string => text.replace(sgr, "")
