import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { editFile, editorCommand } from "../../../src/tui/plan-dialog.ts"
import { tempDir } from "../../support/temp.ts"

describe("the plan dialog's editor", () => {
  it("is $VISUAL, else $EDITOR, else vi (blank values skipped)", () => {
    expect(editorCommand({ VISUAL: "code --wait", EDITOR: "nano" })).toBe("code --wait")
    expect(editorCommand({ VISUAL: " ", EDITOR: "nano" })).toBe("nano")
    expect(editorCommand({})).toBe("vi")
  })

  it("gets the file as one argument, whatever its name holds, and says when it fails", async () => {
    const dir = await tempDir("crystal-editor-")
    const file = path.join(dir, "plan $(touch pwned) ; x.md")
    fs.writeFileSync(file, "- [ ] one\n")
    const editor = path.join(dir, "editor.sh")
    const log = path.join(dir, "args.log")
    fs.writeFileSync(editor, `#!/bin/sh\nprintf '%s|%s' "$#" "$1" > '${log}'\necho "- [ ] two" >> "$1"\n`, { mode: 0o755 })
    expect(editFile(file, { PATH: process.env["PATH"], VISUAL: editor })).toBeUndefined()
    expect(fs.readFileSync(log, "utf8")).toBe(`1|${file}`)
    expect(fs.readFileSync(file, "utf8")).toBe("- [ ] one\n- [ ] two\n")
    expect(editFile(file, { PATH: process.env["PATH"], VISUAL: "false" })).toBe("the editor (false) exited with 1; the plan is read as it is now")
  })
})
