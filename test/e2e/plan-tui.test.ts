/**
 * The plan in the terminal (issue 27): propose_plan's dialog (start working, keep planning with a
 * comment, edit in $VISUAL), and a resumed session showing its plan with /plan.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { crystalBinary, jsonLines, makeSandbox, runCrystal, writeLocalConfig, type Sandbox } from "../support/crystal.ts"
import { startFakeLlm, type FakeLlm, type RecordedRequest, type Reply } from "../support/fake-llm/server.ts"
import type { StaticReply } from "../support/fake-llm/reply.ts"
import { openTerminal, tmuxAvailable } from "../support/tmux.ts"

const cleanups: Array<() => Promise<void> | void> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const plan = "# Fix add\n\n- [x] change `-` to `+` in src/math.js\n- [~] run the tests\n- [ ] tell the operator\n"

const title = { text: "Planning the fix" }
const isTitleRequest = (request: RecordedRequest) => JSON.stringify(request.body).includes("Name this coding session")

/** The replies in order to the turns' requests; the background title request, whenever it comes, gets a title. */
const turnReplies = (replies: ReadonlyArray<StaticReply>): ReadonlyArray<Reply> => {
  const queue = [...replies]
  return [...replies, title].map(() => (request: RecordedRequest) => (isTitleRequest(request) ? title : (queue.shift() ?? { text: "(no more replies)" })))
}

interface ChatBody {
  readonly messages: ReadonlyArray<{ readonly role: string; readonly content?: unknown }>
  readonly tools?: ReadonlyArray<{ readonly function: { readonly name: string } }>
}

const turnRequests = (fake: FakeLlm): ReadonlyArray<ChatBody> => fake.requests.filter((request) => !isTitleRequest(request)).map((request) => request.body as ChatBody)

const waitForTurnRequests = async (fake: FakeLlm, count: number) => {
  const deadline = Date.now() + 10_000
  while (turnRequests(fake).length < count) {
    if (Date.now() > deadline) throw new Error(`expected ${count} turn requests, got ${turnRequests(fake).length}`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
  return turnRequests(fake)
}

const proposing = [{ toolCalls: [{ name: "plan", arguments: { text: plan } }] }, { toolCalls: [{ name: "propose_plan", arguments: {} }] }]

describe.runIf(tmuxAvailable())("the plan in a terminal", () => {
  const start = async (replies: ReadonlyArray<StaticReply>, env: Record<string, string> = {}) => {
    const sandbox: Sandbox = await makeSandbox({})
    const fake: FakeLlm = await startFakeLlm()
    cleanups.push(() => fake.close())
    await writeLocalConfig(sandbox, fake.url)
    fake.script(turnReplies(replies))
    const terminal = openTerminal([crystalBinary, "--mode", "plan"], { cwd: sandbox.workspace, env: { ...sandbox.env, TERM: "xterm", ...env } })
    cleanups.push(() => terminal.close())
    await terminal.waitFor(/approval default · local\/test-model/)
    terminal.type("plan the fix")
    terminal.press("Enter")
    await terminal.waitFor(/Start working on it[\s\S]*Keep planning[\s\S]*Edit/)
    return { sandbox, fake, terminal }
  }

  it("start working: switches to work mode and the next request carries the plan", async () => {
    const { fake, terminal } = await start([...proposing, { text: "Working on it." }])
    const screen = await terminal.waitFor(/What next\?/)
    expect(screen).toContain("- [ ] tell the operator")
    terminal.press("Enter")
    await terminal.waitFor(/Working on it\./)
    const requests = await waitForTurnRequests(fake, 3)
    const work = requests[2]
    expect(work?.tools?.map((tool) => tool.function.name)).toContain("edit")
    expect(work?.tools?.map((tool) => tool.function.name)).not.toContain("propose_plan")
    const lastUser = [...(work?.messages ?? [])].reverse().find((message) => message.role === "user")
    expect(String(lastUser?.content)).toContain("Carry out the plan the operator approved.")
    expect(String(lastUser?.content)).toContain(plan.trimEnd())
    await terminal.waitFor(/work · approval default/)
  })

  it("keep planning: the comment goes back to the model, which stays in plan mode", async () => {
    const { fake, terminal } = await start([...proposing, { text: "Revising." }])
    await terminal.waitFor(/What next\?/)
    terminal.press("Down", "Enter")
    await terminal.waitFor(/Comment to the model/)
    terminal.type("split step 2 in two")
    terminal.press("Enter")
    await terminal.waitFor(/Revising\./)
    const requests = await waitForTurnRequests(fake, 3)
    expect(JSON.stringify(requests[2]?.messages.at(-1))).toContain("The operator wants to keep planning: split step 2 in two")
    expect(requests[2]?.tools?.map((tool) => tool.function.name)).toContain("propose_plan")
  })

  it("edit: opens $VISUAL on the plan file, shows the plan as edited, and hands that over", async () => {
    const scriptDir = await fs.mkdtemp(path.join((await import("node:os")).tmpdir(), "crystal-editor-"))
    cleanups.push(() => fs.rm(scriptDir, { recursive: true, force: true }))
    const editor = path.join(scriptDir, "editor.sh")
    await fs.writeFile(editor, '#!/bin/sh\nprintf -- "- [ ] added in the editor\\n" >> "$1"\n', { mode: 0o755 })
    const { fake, terminal } = await start([...proposing, { text: "Working on the edited plan." }], { VISUAL: editor })
    await terminal.waitFor(/What next\?/)
    terminal.press("Down", "Down", "Enter")
    await terminal.waitFor(/added in the editor[\s\S]*What next\?/)
    terminal.press("Enter")
    await terminal.waitFor(/Working on the edited plan\./)
    const requests = await waitForTurnRequests(fake, 3)
    const lastUser = [...(requests[2]?.messages ?? [])].reverse().find((message) => message.role === "user")
    expect(String(lastUser?.content)).toContain(`${plan}- [ ] added in the editor`)
  })

  it("refuses --plan in a conversation with one line (it is for crystal run)", async () => {
    const sandbox: Sandbox = await makeSandbox({ "p.md": plan })
    const fake: FakeLlm = await startFakeLlm()
    cleanups.push(() => fake.close())
    await writeLocalConfig(sandbox, fake.url)
    const terminal = openTerminal([crystalBinary, "--plan", "p.md"], { cwd: sandbox.workspace, env: { ...sandbox.env, TERM: "xterm" } })
    cleanups.push(() => terminal.close())
    const screen = await terminal.waitFor(/EXIT=\d+/)
    expect(screen).toContain("crystal: --plan starts a `crystal run` Work turn from a plan file; it is not for a conversation\nEXIT=2")
    expect(fake.requests).toHaveLength(0)
  })

  it("a resumed session shows its plan with /plan", async () => {
    const sandbox: Sandbox = await makeSandbox({})
    const fake: FakeLlm = await startFakeLlm()
    cleanups.push(() => fake.close())
    await writeLocalConfig(sandbox, fake.url)
    fake.script([{ toolCalls: [{ name: "plan", arguments: { text: plan } }] }, { text: "Plan saved." }])
    const first = await runCrystal(sandbox, ["run", "--format", "json", "--mode", "plan", "plan it"])
    expect(first.code).toBe(0)
    const id = String(jsonLines(first.stdout).find((event) => event["type"] === "session")?.["id"])
    const terminal = openTerminal([crystalBinary, "--resume", id], { cwd: sandbox.workspace, env: { ...sandbox.env, TERM: "xterm" } })
    cleanups.push(() => terminal.close())
    await terminal.waitFor(/approval default · local\/test-model/)
    terminal.type("/plan")
    terminal.press("Enter")
    const planPath = path.join(sandbox.home, "plans", `${id}.md`)
    const screen = await terminal.waitFor(/tell the operator/)
    expect(screen).toContain(`plan: ${planPath}\n# Fix add\n\n- [x] change \`-\` to \`+\` in src/math.js\n- [~] run the tests\n- [ ] tell the operator`)
  })
})
