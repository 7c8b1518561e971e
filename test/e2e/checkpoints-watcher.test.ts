/**
 * The checkpoint store's change feed in the compiled binary (Bun's fs.watch): a turn's "after"
 * snapshot is taken from the folders inotify reported, so a burst of shell changes right after
 * the "before" snapshot (a new nested folder, a folder renamed, a folder replaced by another of
 * the same name) must all be in the turn's files and undone by a rewind.
 */
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, runCrystal, sessionFiles, writeLocalConfig } from "../support/crystal.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { treeState } from "../unit/checkpoints/support.ts"

const fakeServer = useFakeServers()

describe("checkpoints' change feed in the compiled binary", () => {
  it("a shell burst of folder changes is in the turn's files and a rewind undoes it", async () => {
    const sandbox = await makeSandbox({ "src/a.txt": "alpha\n", "src/deep/b.txt": "beta\n", "old/gone.txt": "old\n", "keep.txt": "keep\n", "burst.sh": "mkdir -p a/b/c && echo > a/b/c/f && mv src moved && echo x >> moved/deep/b.txt && rm -r old && mkdir old && echo n > old/new.txt\n" })
    const fake = await fakeServer()
    await writeLocalConfig(sandbox, fake.url)
    const before = treeState(sandbox.workspace)
    fake.script([
      { toolCalls: [{ id: "c1", name: "bash", arguments: { command: "sh burst.sh" } }] },
      { text: "Done." }
    ])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "--approval", "full", "shuffle folders"])
    expect(result.code, result.stderr).toBe(0)
    const changed = jsonLines(result.stdout).find((event) => event.type === "files_changed") as { files: Array<{ path: string; kind: string }> } | undefined
    expect(changed?.files.map((file) => `${file.kind} ${file.path}`).sort()).toEqual([
      "added a/b/c/f",
      "added moved/a.txt",
      "added moved/deep/b.txt",
      "added old/new.txt",
      "deleted old/gone.txt",
      "deleted src/a.txt",
      "deleted src/deep/b.txt"
    ])
    const [file] = await sessionFiles(sandbox)
    const rewound = await runCrystal(sandbox, ["rewind", "--session", path.basename(file as string, ".json"), "--to", "1"])
    expect(rewound.code, rewound.stderr).toBe(0)
    expect(treeState(sandbox.workspace)).toEqual(before)
  })
})
