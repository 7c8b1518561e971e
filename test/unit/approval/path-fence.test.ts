import * as fs from "node:fs/promises"
import * as os from "node:os"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import { afterEach, beforeEach, describe, expect, it } from "vitest"
import { makePathFence, type Access, type PathFence } from "../../../src/approval/path-fence.ts"

let base: string
let ws: string
let outside: string

beforeEach(async () => {
  base = await fs.realpath(await fs.mkdtemp(path.join(os.tmpdir(), "crystal-fence-")))
  ws = path.join(base, "ws")
  outside = path.join(base, "outside")
  await fs.mkdir(path.join(ws, "src", "deep"), { recursive: true })
  await fs.mkdir(outside)
  await fs.writeFile(path.join(ws, "src", "a.ts"), "")
  await fs.writeFile(path.join(outside, "secret.txt"), "")
})

afterEach(async () => {
  await fs.rm(base, { recursive: true, force: true })
})

const resolve = async (fence: PathFence, input: string, access: Access) => Effect.runPromise(Effect.either(fence.resolve(input, access)))

const allowed = async (fence: PathFence, input: string, access: Access) => {
  const result = await resolve(fence, input, access)
  if (result._tag === "Left") throw new Error(`expected ${input} to be allowed for ${access}: ${result.left.message}`)
  return result.right
}

const refused = async (fence: PathFence, input: string, access: Access): Promise<string> => {
  const result = await resolve(fence, input, access)
  if (result._tag === "Right") throw new Error(`expected ${input} to be refused for ${access}, got ${result.right.real}`)
  return result.left.message
}

describe("path fence", () => {
  it("allows paths inside the workspace, relative or absolute, and shows them relative", async () => {
    const fence = await makePathFence(ws)
    expect(await allowed(fence, "src/a.ts", "read")).toEqual({ real: path.join(ws, "src", "a.ts"), display: path.join("src", "a.ts") })
    expect(await allowed(fence, path.join(ws, "src", "a.ts"), "write")).toEqual({ real: path.join(ws, "src", "a.ts"), display: path.join("src", "a.ts") })
    expect(await allowed(fence, ".", "read")).toEqual({ real: ws, display: "." })
    expect(await allowed(fence, "src/../src/./deep", "read")).toEqual({ real: path.join(ws, "src", "deep"), display: path.join("src", "deep") })
  })

  it("allows new files inside the workspace for writing", async () => {
    const fence = await makePathFence(ws)
    expect((await allowed(fence, "src/new/dir/file.ts", "write")).real).toBe(path.join(ws, "src", "new", "dir", "file.ts"))
  })

  it("refuses absolute paths outside and `..` escapes", async () => {
    const fence = await makePathFence(ws)
    expect(await refused(fence, path.join(outside, "secret.txt"), "read")).toBe(
      `'${path.join(outside, "secret.txt")}' is outside the workspace ${ws} and the readable directories granted to this session; read refused`
    )
    expect(await refused(fence, "../outside/secret.txt", "read")).toMatch(/is outside the workspace .*; read refused$/)
    expect(await refused(fence, "src/../../outside/x", "write")).toMatch(/writable directories granted to this session; write refused$/)
    expect(await refused(fence, "/", "read")).toMatch(/read refused/)
    expect(await refused(fence, "..", "read")).toMatch(/read refused/)
  })

  it("refuses a workspace-prefixed sibling directory", async () => {
    await fs.mkdir(`${ws}-other`)
    const fence = await makePathFence(ws)
    expect(await refused(fence, `${ws}-other/x`, "read")).toMatch(/read refused/)
  })

  it("refuses symbolic links to a file or a directory outside, naming where they lead", async () => {
    await fs.symlink(path.join(outside, "secret.txt"), path.join(ws, "file-link"))
    await fs.symlink(outside, path.join(ws, "dir-link"))
    const fence = await makePathFence(ws)
    expect(await refused(fence, "file-link", "read")).toContain(`(through a symbolic link it resolves to ${path.join(outside, "secret.txt")}); read refused`)
    expect(await refused(fence, "dir-link", "read")).toContain(`resolves to ${outside})`)
    expect(await refused(fence, "dir-link/secret.txt", "read")).toMatch(/read refused/)
  })

  it("refuses a not-yet-existing file under a symlinked directory that points outside", async () => {
    await fs.symlink(outside, path.join(ws, "dir-link"))
    const fence = await makePathFence(ws)
    expect(await refused(fence, "dir-link/new/file.txt", "write")).toContain(`resolves to ${path.join(outside, "new", "file.txt")}); write refused`)
  })

  it("allows symbolic links that stay inside the workspace, resolving to the real path", async () => {
    await fs.symlink(path.join(ws, "src"), path.join(ws, "src-link"))
    await fs.symlink(path.join("src", "a.ts"), path.join(ws, "a-link.ts"))
    const fence = await makePathFence(ws)
    expect(await allowed(fence, "src-link/a.ts", "write")).toEqual({ real: path.join(ws, "src", "a.ts"), display: path.join("src", "a.ts") })
    expect(await allowed(fence, "a-link.ts", "read")).toEqual({ real: path.join(ws, "src", "a.ts"), display: path.join("src", "a.ts") })
  })

  it("a read-only grant allows reading and refuses writing; a write grant allows both", async () => {
    const ro = path.join(base, "ro")
    const rw = path.join(base, "rw")
    await fs.mkdir(ro)
    await fs.mkdir(rw)
    const fence = await makePathFence(ws, [
      { dir: ro, access: "read" },
      { dir: rw, access: "write" }
    ])
    expect(await allowed(fence, path.join(ro, "x.txt"), "read")).toEqual({ real: path.join(ro, "x.txt"), display: path.join(ro, "x.txt") })
    expect(await refused(fence, path.join(ro, "x.txt"), "write")).toMatch(/writable directories granted to this session; write refused$/)
    expect((await allowed(fence, path.join(rw, "x.txt"), "write")).real).toBe(path.join(rw, "x.txt"))
    expect(await refused(fence, path.join(outside, "secret.txt"), "read")).toMatch(/read refused/)
  })

  it("resolves a workspace given through a symbolic link", async () => {
    const alias = path.join(base, "ws-alias")
    await fs.symlink(ws, alias)
    const fence = await makePathFence(alias)
    expect(fence.workspace).toBe(ws)
    expect((await allowed(fence, "src/a.ts", "read")).display).toBe(path.join("src", "a.ts"))
  })

  it("refuses a NUL byte in a path", async () => {
    const fence = await makePathFence(ws)
    expect(await refused(fence, "src/a\0.ts", "read")).toBe("cannot resolve path 'src/a\0.ts': the path contains a NUL byte")
  })

  // Writing through a dangling link would create its target, so the target is what is checked.
  it("refuses a dangling symbolic link that points outside the workspace", async () => {
    await fs.symlink(path.join(outside, "created-by-write.txt"), path.join(ws, "dangling"))
    const fence = await makePathFence(ws)
    expect(await refused(fence, "dangling", "write")).toMatch(/write refused/)
  })

  it("refuses a new file under a dangling directory link that points outside", async () => {
    await fs.symlink(path.join(outside, "not-yet"), path.join(ws, "later"))
    const fence = await makePathFence(ws)
    expect(await refused(fence, "later/new.txt", "write")).toMatch(/write refused/)
  })

  it("allows a dangling link that stays inside the workspace", async () => {
    await fs.symlink(path.join(ws, "future.txt"), path.join(ws, "soon"))
    const fence = await makePathFence(ws)
    expect((await Effect.runPromise(fence.resolve("soon", "write"))).real).toBe(path.join(ws, "future.txt"))
  })

  it("fails cleanly on a symbolic link loop", async () => {
    await fs.symlink(path.join(ws, "loop-b"), path.join(ws, "loop-a"))
    await fs.symlink(path.join(ws, "loop-a"), path.join(ws, "loop-b"))
    const fence = await makePathFence(ws)
    expect(await refused(fence, "loop-a", "read")).toMatch(/^cannot resolve path 'loop-a'/)
  })
})
