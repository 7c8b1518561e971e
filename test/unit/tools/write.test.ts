import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterEach, describe, expect, it } from "vitest"
import { KeyedSemaphore } from "../../../src/files/keyed-semaphore.ts"
import { lazyTool, type Tool } from "../../../src/tools/tool.ts"
import { writeSpec } from "../../../src/tools/write-specs.ts"
import { cleanupFixtures, makeFixture, run, runError } from "./support.ts"

const writeTool: Tool = lazyTool(writeSpec, () => import("../../../src/tools/write.ts").then((module) => module.makeWriteFile(new KeyedSemaphore())))

afterEach(cleanupFixtures)

/** Files under `dir` that look like temp files of an atomic write. */
const leftovers = async (dir: string): Promise<Array<string>> =>
  (await fs.readdir(dir, { recursive: true })).filter((entry) => entry.endsWith(".tmp") || entry.includes(".crystal-"))
const modeOf = async (file: string): Promise<number> => (await fs.stat(file)).mode & 0o7777
const exists = (file: string): Promise<boolean> =>
  fs.lstat(file).then(
    () => true,
    () => false
  )

describe("write", () => {
  it("creates a file and its missing parent directories", async () => {
    const f = await makeFixture()
    expect(await run(writeTool, { path: "src/deep/er/a.ts", content: "export const a = 1\nexport const b = 2\n" }, f.context)).toBe(
      "created src/deep/er/a.ts (2 lines; created directory src)"
    )
    expect(await fs.readFile(path.join(f.workspace, "src/deep/er/a.ts"), "utf8")).toBe("export const a = 1\nexport const b = 2\n")
    expect(await run(writeTool, { path: "src/b.ts", content: "x" }, f.context)).toBe("created src/b.ts (1 line)")
    expect(await run(writeTool, { path: "empty.txt", content: "" }, f.context)).toBe("created empty.txt (empty)")
    expect(await fs.readFile(path.join(f.workspace, "empty.txt"), "utf8")).toBe("")
    expect(await leftovers(f.base)).toEqual([])
  })

  it("gives a new file the default mode (0666 less the umask)", async () => {
    const f = await makeFixture()
    await run(writeTool, { path: "new.txt", content: "hi\n" }, f.context)
    const umask = process.umask()
    expect(await modeOf(path.join(f.workspace, "new.txt"))).toBe(0o666 & ~umask)
  })

  it("overwrites a file with exactly the content given, keeping its mode, atomically", async () => {
    const f = await makeFixture({ "run.sh": "#!/bin/sh\r\necho old\r\n", "key.pem": "old\n" })
    const script = path.join(f.workspace, "run.sh")
    await fs.chmod(script, 0o750)
    await fs.chmod(path.join(f.workspace, "key.pem"), 0o600)
    const before = (await fs.stat(script)).ino
    expect(await run(writeTool, { path: "run.sh", content: "#!/bin/sh\necho new\necho more\n" }, f.context)).toBe("overwrote run.sh (3 lines)")
    expect(await fs.readFile(script, "utf8")).toBe("#!/bin/sh\necho new\necho more\n")
    expect(await modeOf(script)).toBe(0o750)
    expect((await fs.stat(script)).ino).not.toBe(before)
    await run(writeTool, { path: "key.pem", content: "new\r\n" }, f.context)
    expect(await fs.readFile(path.join(f.workspace, "key.pem"), "utf8")).toBe("new\r\n")
    expect(await modeOf(path.join(f.workspace, "key.pem"))).toBe(0o600)
    expect(await leftovers(f.base)).toEqual([])
  })

  it("writes UTF-8 text byte for byte", async () => {
    const f = await makeFixture()
    const content = "héllo wörld € 𝄞\n"
    await run(writeTool, { path: "u.txt", content }, f.context)
    expect(await fs.readFile(path.join(f.workspace, "u.txt"))).toEqual(Buffer.from(content, "utf8"))
  })

  it("leaves a file alone when it already has the content", async () => {
    const f = await makeFixture({ "a.txt": "same\n" })
    const file = path.join(f.workspace, "a.txt")
    const before = await fs.stat(file)
    expect(await run(writeTool, { path: "a.txt", content: "same\n" }, f.context)).toBe("a.txt already has this content (1 line); nothing written.")
    const after = await fs.stat(file)
    expect([after.ino, after.mtimeMs]).toEqual([before.ino, before.mtimeMs])
  })

  it("writes through a symbolic link inside the workspace to its target, keeping the link", async () => {
    const f = await makeFixture({ "target.txt": "old\n" })
    await fs.symlink("target.txt", path.join(f.workspace, "alias.txt"))
    expect(await run(writeTool, { path: "alias.txt", content: "new\n" }, f.context)).toBe("overwrote target.txt (1 line)")
    expect((await fs.lstat(path.join(f.workspace, "alias.txt"))).isSymbolicLink()).toBe(true)
    expect(await fs.readFile(path.join(f.workspace, "target.txt"), "utf8")).toBe("new\n")
  })

  it("refuses directories, directory-like paths and a parent that is a file", async () => {
    const f = await makeFixture({ "src/": "", "notes.txt": "n\n" })
    expect(await runError(writeTool, { path: "src", content: "x" }, f.context)).toBe("src is a directory; write needs a file path.")
    expect(await runError(writeTool, { path: "newdir/", content: "x" }, f.context)).toBe("'newdir/' names a directory; write needs a file path.")
    expect(await runError(writeTool, { path: "src/..", content: "x" }, f.context)).toBe("'src/..' names a directory; write needs a file path.")
    expect(await runError(writeTool, { path: "notes.txt/inner/a.txt", content: "x" }, f.context)).toBe(
      "cannot create notes.txt/inner/a.txt: notes.txt is a file, not a directory."
    )
    expect(await exists(path.join(f.workspace, "newdir"))).toBe(false)
    expect(await fs.readFile(path.join(f.workspace, "notes.txt"), "utf8")).toBe("n\n")
    expect(await leftovers(f.base)).toEqual([])
  })

  it("refuses paths outside the workspace: absolute, through `..`, and through symbolic links", async () => {
    const f = await makeFixture({}, { "secret.txt": "secret\n" })
    const secret = path.join(f.outside, "secret.txt")
    const original = await fs.readFile(secret)
    const originalStat = await fs.stat(secret)
    await fs.symlink(secret, path.join(f.workspace, "link.txt"))
    await fs.symlink(f.outside, path.join(f.workspace, "linkdir"))
    await fs.symlink(path.join(f.outside, "planted.txt"), path.join(f.workspace, "dangling.txt"))
    expect(await runError(writeTool, { path: secret, content: "pwned\n" }, f.context)).toMatch(/^'.*secret\.txt' is outside the workspace .*; write refused$/)
    expect(await runError(writeTool, { path: "../outside/secret.txt", content: "pwned\n" }, f.context)).toMatch(/write refused$/)
    expect(await runError(writeTool, { path: "../outside/new/x.txt", content: "pwned\n" }, f.context)).toMatch(/write refused$/)
    expect(await runError(writeTool, { path: "link.txt", content: "pwned\n" }, f.context)).toMatch(
      /^'link\.txt' is outside the workspace .* \(through a symbolic link it resolves to .*secret\.txt\); write refused$/
    )
    expect(await runError(writeTool, { path: "linkdir/secret.txt", content: "pwned\n" }, f.context)).toMatch(/write refused$/)
    expect(await runError(writeTool, { path: "linkdir/sub/new.txt", content: "pwned\n" }, f.context)).toMatch(/write refused$/)
    expect(await runError(writeTool, { path: "dangling.txt", content: "pwned\n" }, f.context)).toMatch(/planted\.txt\); write refused$/)
    expect(await fs.readFile(secret)).toEqual(original)
    expect((await fs.stat(secret)).mtimeMs).toBe(originalStat.mtimeMs)
    expect((await fs.readdir(f.outside)).sort()).toEqual(["secret.txt"])
    expect((await fs.lstat(path.join(f.workspace, "link.txt"))).isSymbolicLink()).toBe(true)
    expect(await leftovers(f.base)).toEqual([])
  })

  it("is classified as a medium-risk workspace write, high outside", async () => {
    const f = await makeFixture()
    const inside = await Effect.runPromise(writeTool.classify({ path: "new/a.txt", content: "x" }, f.context))
    expect(inside).toMatchObject({ risk: "medium", authority: "write", scope: "workspace", summary: "write new/a.txt" })
    const outside = await Effect.runPromise(writeTool.classify({ path: "../outside/a.txt", content: "x" }, f.context))
    expect(outside).toMatchObject({ risk: "high", authority: "write", scope: "outside" })
  })
})
