import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { findCompletion, listWorkspaceFiles } from "../../../src/tui/completion.ts"
import { emptyEditor } from "../../../src/tui/editor-state.ts"
import { tempDir, writeTree } from "../../support/temp.ts"

describe("@ file completion", () => {
  it("does not offer files the workspace's .gitignore leaves out", async () => {
    const root = await tempDir()
    await writeTree(root, {
      ".gitignore": "secret.env\nout/\n",
      "src/app.ts": "",
      "src/secret.env": "",
      "src/.gitignore": "*.log\n!keep.log\n",
      "src/debug.log": "",
      "src/keep.log": "",
      "out/bundle.js": "",
      "secret.env": ""
    })
    const files = listWorkspaceFiles(root)
    expect(files).toEqual([".gitignore", "src/.gitignore", "src/app.ts", "src/keep.log"])
    const completion = findCompletion({ ...emptyEditor, text: "see @secret", cursor: 11 }, () => [], () => files)
    expect(completion).toBeUndefined()
  })

  it("lists shallow files first, hidden ones too, skips dependency folders and stops at the limit", async () => {
    const root = await tempDir()
    await writeTree(root, {
      "b/deep/z.ts": "",
      "b/y.ts": "",
      "a.ts": "",
      ".env.example": "",
      "node_modules/pkg/index.js": "",
      ".git/config": "",
      "dist/crystal": ""
    })
    await fs.symlink(path.join(root, "a.ts"), path.join(root, "link.ts"))
    expect(listWorkspaceFiles(root)).toEqual([".env.example", "a.ts", "link.ts", "b/y.ts", "b/deep/z.ts"])
    expect(listWorkspaceFiles(root, 2)).toEqual([".env.example", "a.ts"])
  })
})
