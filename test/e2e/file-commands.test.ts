/**
 * Slash commands from files and /init through `crystal run`: the compiled binary, a temp home and
 * workspace with command files, the fake LLM server recording what the model was sent.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import { makeSandbox, readSession, runCrystal, sessionFiles, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import type { FakeLlm } from "../support/fake-llm/server.ts"
import { useFakeServers } from "../support/fake-servers.ts"
import { writeTree } from "../support/temp.ts"

const fakeServer = useFakeServers()

interface ChatBody {
  readonly model: string
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content?: unknown }>
  readonly tools?: ReadonlyArray<{ readonly function: { readonly name: string } }>
}

const bodyOf = (fake: FakeLlm, index: number): ChatBody => fake.requests[index]?.body as ChatBody
const lastUserText = (fake: FakeLlm, index: number): string => {
  const users = bodyOf(fake, index).messages.filter((message) => message.role === "user")
  const content = users.at(-1)?.content
  return typeof content === "string" ? content : JSON.stringify(content)
}

const setup = async () => {
  const sandbox = await makeSandbox({ "src/a b.ts": "export const a = 1\n" })
  const fake = await fakeServer()
  await writeLocalConfig(sandbox, fake.url, {
    providers: {
      local: { protocol: "openai-chat", baseURL: `${fake.url}/v1`, models: { "test-model": { contextWindow: 32768 }, "other-model": { contextWindow: 32768 } } }
    }
  })
  await writeTree(path.join(sandbox.home, "commands"), {
    "review.md": "---\ndescription: the home's review\n---\nHOME REVIEW $ARGUMENTS\n",
    "git/commit.md": "---\ndescription: Commit the work\nmodel: local/other-model\n---\nWrite a commit message for: $ARGUMENTS\n"
  })
  await writeTree(path.join(sandbox.workspace, ".crystal", "commands"), {
    "review.md": '---\ndescription: Review one file\nmode: plan\n---\nReview $1 for "$2" (all: $ARGUMENTS) in {{workspace}}; $3 is empty.\n',
    "delegate.md": "---\nagent: reviewer\n---\nHand it over.\n",
    "scribble.md": "Write the file notes.txt saying hi.\n"
  })
  return { sandbox, fake }
}

const sessionOf = async (sandbox: Sandbox) => readSession((await sessionFiles(sandbox))[0] ?? "")

describe("commands from files, headless", () => {
  it('crystal run "/review ARGS": the workspace file wins, its arguments and placeholders are filled in, and its mode is set', async () => {
    const { sandbox, fake } = await setup()
    fake.script([{ text: "Looks fine." }])
    const result = await runCrystal(sandbox, ["run", `/review "src/a b.ts" speed`])
    expect(result.stderr).toContain("plan mode (set by /review; it stays)")
    expect(result.code).toBe(0)
    expect(lastUserText(fake, 0)).toBe(`Review src/a b.ts for "speed" (all: "src/a b.ts" speed) in ${sandbox.workspace}; ${""} is empty.\n`)
    // Plan mode's catalog: no write tools were offered.
    expect(bodyOf(fake, 0).tools?.map((tool) => tool.function.name)).not.toContain("write")
    expect(await sessionOf(sandbox)).toMatchObject({ mode: "plan", approval: "default" })
  })

  it("a subfolder gives /group:name, and its model is used", async () => {
    const { sandbox, fake } = await setup()
    fake.script([{ text: "fix: the build" }])
    const result = await runCrystal(sandbox, ["run", "/git:commit the build fix"])
    expect(result.code).toBe(0)
    expect(result.stderr).toContain("model local/other-model (set by /git:commit; it stays)")
    expect(bodyOf(fake, 0).model).toBe("other-model")
    expect(lastUserText(fake, 0)).toBe("Write a commit message for: the build fix\n")
  })

  it("a command naming an agent is refused in one line, before any request", async () => {
    const { sandbox, fake } = await setup()
    const result = await runCrystal(sandbox, ["run", "/delegate now"])
    expect(result.code).toBe(2)
    expect(result.stderr.trim().split("\n").at(-1)).toMatch(/delegate\.md: "agent" names a subagent, and a command cannot run as one \(it runs in the session itself\); \/delegate skipped\.$/)
    expect(result.stderr).not.toMatch(/\n\s+at /)
    expect(fake.requests).toHaveLength(0)
  })

  it("a command naming a model that does not exist fails in one line, before any request", async () => {
    const { sandbox, fake } = await setup()
    await writeTree(path.join(sandbox.workspace, ".crystal", "commands"), { "ghost.md": "---\nmodel: nowhere/missing-model\n---\nHello.\n" })
    const result = await runCrystal(sandbox, ["run", "/ghost"])
    expect(result.code).toBe(2)
    expect(result.stderr).toMatch(/^crystal: \S+ghost\.md: "model": unknown provider 'nowhere' in 'nowhere\/missing-model' \(known: local, /)
    expect(result.stderr).not.toMatch(/\n\s+at /)
    expect(fake.requests).toHaveLength(0)
  })

  it("a text that names no command is the prompt as typed", async () => {
    const { sandbox, fake } = await setup()
    fake.script([{ text: "It maps names." }])
    expect((await runCrystal(sandbox, ["run", "/etc/hosts: what is it?"])).code).toBe(0)
    expect(lastUserText(fake, 0)).toBe("/etc/hosts: what is it?")
  })

  it("a command never changes approval: its write is still asked, and headless refuses it", async () => {
    const { sandbox, fake } = await setup()
    fake.script([{ toolCalls: [{ name: "write", arguments: { path: "notes.txt", content: "hi\n" } }] }, { text: "Could not write." }])
    const result = await runCrystal(sandbox, ["run", "/scribble"])
    expect(result.code).toBe(0)
    expect(lastUserText(fake, 0)).toBe("Write the file notes.txt saying hi.\n")
    await expect(fs.stat(path.join(sandbox.workspace, "notes.txt"))).rejects.toThrow(/ENOENT/)
    expect(JSON.stringify(bodyOf(fake, 1).messages.at(-1))).toMatch(/Denied: .* needs the operator's approval in the default approval mode, and nobody can approve/)
  })

  it('crystal run "/init" sends the fixed prompt, and its write of AGENTS.md meets approval like any other', async () => {
    const { sandbox, fake } = await setup()
    fake.script([
      { toolCalls: [{ name: "list", arguments: { path: "." } }] },
      { toolCalls: [{ name: "write", arguments: { path: "AGENTS.md", content: "# Agents\n" } }] },
      { text: "I could not write AGENTS.md." }
    ])
    const result = await runCrystal(sandbox, ["run", "/init keep it short"])
    expect(result.code).toBe(0)
    expect(lastUserText(fake, 0)).toMatch(/^Write the workspace's AGENTS\.md[\s\S]*The operator adds: keep it short\n$/)
    await expect(fs.stat(path.join(sandbox.workspace, "AGENTS.md"))).rejects.toThrow(/ENOENT/)
    expect(JSON.stringify(bodyOf(fake, 2).messages.at(-1))).toMatch(/Denied: .* needs the operator's approval in the default approval mode/)
  })
})
