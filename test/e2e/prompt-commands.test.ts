/**
 * Prompt sets and attachments through the compiled binary: `crystal run --prompt-set NAME` sends
 * the set's texts (the reviewer's included), the prompt flags fail start-up on bad names, and
 * `crystal promptsets` / `crystal prompt-attachments` list and edit the manifests.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { makeSandbox, runCrystal, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import { startFakeLlm, type FakeLlm } from "../support/fake-llm/server.ts"
import { writeTree } from "../support/temp.ts"

const servers: Array<FakeLlm> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

const terseManifest = '{\n  "name": "Terse",\n  "enabled": false,\n  "owner": "platform-team"\n}\n'

/** A home with the disabled set "terse" (work and review texts) and the disabled attachment "style". */
const sandboxWithPrompts = async (): Promise<Sandbox> => {
  const sandbox = await makeSandbox({ "AGENTS.md": "Workspace rules.\n" })
  await writeTree(sandbox.home, {
    "promptsets/terse/prompt.json": terseManifest,
    "promptsets/terse/work.md": "TERSE-WORK: answer in one line. Workspace: {{workspace}}\n",
    "promptsets/terse/review.md": 'TERSE-REVIEW: answer {"risk_level","user_authorization","reason"} as JSON.\n',
    "prompt-attachments/style/prompt.json": '{ "name": "House style", "enabled": false }\n',
    "prompt-attachments/style/work.md": "STYLE: British spelling.\n"
  })
  return sandbox
}

interface ChatBody {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content?: unknown }>
}

const systemOf = (fake: FakeLlm, index: number): string => {
  const body = fake.requests[index]?.body as ChatBody
  return String(body.messages.find((message) => message.role === "system")?.content ?? "")
}

const manifest = (sandbox: Sandbox, dir: string) => fs.readFile(path.join(sandbox.home, dir, "prompt.json"), "utf8")

describe("crystal run with prompt flags", () => {
  it("--prompt-set sends a disabled set's Work and Review texts and leaves its manifest alone", async () => {
    const sandbox = await sandboxWithPrompts()
    const fake = await startFakeLlm()
    servers.push(fake)
    await writeLocalConfig(sandbox, fake.url)
    fake.script([
      { toolCalls: [{ id: "call_touch", name: "bash", arguments: { command: "touch made.txt" } }] },
      { text: JSON.stringify({ risk_level: "low", user_authorization: "high", reason: "Asked for." }) },
      { text: "Done." }
    ])
    const result = await runCrystal(sandbox, [
      "run",
      "--prompt-set",
      "terse",
      "--prompt-attachment",
      "style",
      "--approval",
      "review",
      "create made.txt"
    ])
    expect(result.stderr).toMatch(/^→ bash touch made\.txt\n {2}✓ .*\nturn 1: 1 file changed \(\+0 −0\)\n$/)
    expect(result.code).toBe(0)
    expect(result.stdout).toBe("Done.\n")
    expect(systemOf(fake, 0)).toBe(`TERSE-WORK: answer in one line. Workspace: ${sandbox.workspace}\n\nSTYLE: British spelling.\n`)
    // The reviewer gets the set's review text; the attachment has no review.md, so nothing is appended.
    expect(systemOf(fake, 1)).toBe('TERSE-REVIEW: answer {"risk_level","user_authorization","reason"} as JSON.\n')
    await expect(fs.access(path.join(sandbox.workspace, "made.txt"))).resolves.toBeUndefined()
    expect(await manifest(sandbox, "promptsets/terse")).toBe(terseManifest)
    expect(await manifest(sandbox, "prompt-attachments/style")).toBe('{ "name": "House style", "enabled": false }\n')
  })

  it.each([
    [["--prompt-set", "nope"], /^crystal: --prompt-set: no prompt set 'nope' in .*promptsets \(available: default, terse\)\n$/],
    [["--prompt-attachment", "missing"], /^crystal: --prompt-attachment: no prompt attachment 'missing' in .* \(available: style\)\n$/],
    [["--prompt-attachment", "style", "--prompt-attachments", "off"], /^crystal: --prompt-attachment cannot be combined with --prompt-attachments off\n$/]
  ])("refuses to start with %j", async (flags, message) => {
    const sandbox = await sandboxWithPrompts()
    await writeLocalConfig(sandbox, "http://127.0.0.1:9")
    const result = await runCrystal(sandbox, ["run", ...flags, "hi"])
    expect(result.stderr).toMatch(message)
    expect(result.code).toBe(2)
  })
})

describe("crystal promptsets and crystal prompt-attachments", () => {
  it("lists, enables and disables, rewriting only the enabled fields", async () => {
    const sandbox = await sandboxWithPrompts()
    const listed = await runCrystal(sandbox, ["promptsets", "list"])
    expect(listed.code).toBe(0)
    expect(listed.stdout.split("\n")[0]).toMatch(/^NAME\s+ENABLED\s+IN USE\s+WORK\s+PLAN\s+REVIEW\s+TITLE$/)
    expect(listed.stdout).toMatch(/\ndefault\s+-\s+yes\s+built-in\s+built-in\s+built-in\s+Built-in prompts\n/)
    expect(listed.stdout).toMatch(/\nterse\s+no\s+no\s+work\.md\s+built-in\s+review\.md\s+Terse\n/)

    const enabled = await runCrystal(sandbox, ["promptsets", "enable", "terse"])
    expect(enabled).toMatchObject({ code: 0, stdout: "Enabled prompt set 'terse'.\n" })
    expect(await manifest(sandbox, "promptsets/terse")).toBe(terseManifest.replace('"enabled": false', '"enabled": true'))
    const asText = await runCrystal(sandbox, ["promptsets", "list", "--format", "text"])
    expect(asText.stdout).toContain("terse\tyes\tyes\twork.md\tbuilt-in\treview.md\tTerse\n")

    const disabled = await runCrystal(sandbox, ["promptsets", "disable", "terse"])
    expect(disabled.code).toBe(0)
    expect(await manifest(sandbox, "promptsets/terse")).toBe(terseManifest)

    const unknown = await runCrystal(sandbox, ["promptsets", "enable", "nope"])
    expect(unknown.code).toBe(1)
    expect(unknown.stderr).toMatch(/^crystal: No prompt set 'nope' in .*\n$/)

    const attached = await runCrystal(sandbox, ["prompt-attachments", "enable", "style", "--workspace", sandbox.workspace])
    expect(attached.code).toBe(0)
    expect(await manifest(sandbox, "prompt-attachments/style")).toBe('{ "name": "House style", "enabled": true, "order": 0 }\n')
    const attachments = await runCrystal(sandbox, ["prompt-attachments", "list", "--format", "text"])
    expect(attachments.stdout).toBe("style\tyes\t0\thome\twork.md\t-\t-\tHouse style\n")
  })
})
