/**
 * Seed 001's first table, row by row: what each ordinary hook can do works, and each thing it
 * cannot do is skipped with a note naming the plugin, the hook and the rule. Raw hooks have their
 * own file (raw-hooks.test.ts); the engine seams are tested in hook-seams.test.ts.
 */
import * as fs from "node:fs"
import * as path from "node:path"
import { describe, expect, it } from "vitest"
import type { Classification } from "../../../src/approval/classification.ts"
import type { ModelRequest } from "../../../src/providers/model-client.ts"
import type { ImageRef, TranscriptItem } from "../../../src/session/items.ts"
import { heldPng, pipelineOf, run, withHooks } from "../../support/plugins.ts"
import { localModel } from "../../support/model-entry.ts"
import { tempDir } from "../../support/temp.ts"

const model = (imageInput: boolean) => localModel(undefined, imageInput)

const png = heldPng
const gif: ImageRef = { sha256: "b".repeat(64), mime: "image/gif", marker: "[Image #2]" }

const transcript: ReadonlyArray<TranscriptItem> = [
  { _tag: "user", id: "u1", text: "look at [Image #1]", images: [png] },
  {
    _tag: "assistant",
    id: "a1",
    text: "reading",
    model: "local/m",
    reasoning: [{ text: "think", opaque: { protocol: "x", data: 1 } }],
    toolCalls: [{ id: "call_1", name: "read", arguments: { path: "a.txt" } }]
  },
  { _tag: "tool_result", id: "r1", callId: "call_1", name: "read", text: "1\thello", isError: false }
]

const request = (imageInput = true): ModelRequest => ({ system: "You are a test.", items: transcript, tools: [], model: model(imageInput) })
const held = new Map([[png.sha256, png], [gif.sha256, gif]])

const classification = (risk: Classification["risk"] = "medium"): Classification => ({
  risk,
  authority: "write",
  scope: "workspace",
  summary: "write a.txt",
  paths: []
})

describe("session hooks", () => {
  it("read the workspace, session id and approval mode, and nothing else", async () => {
    const seen: Array<unknown> = []
    const { pipeline } = pipelineOf([withHooks("p", { onSessionStarted: (s) => void seen.push(s), onSessionEnded: (s) => void seen.push(s) })])
    const info = { workspace: "/ws", sessionId: "s1", approval: "default" as const }
    await run(pipeline.sessionStarted({ ...info, secret: "x" } as typeof info))
    await run(pipeline.sessionEnded(info))
    expect(seen).toEqual([info, info])
  })

  it("cannot write config.json: a change is put back and noted", async () => {
    const dir = await tempDir()
    const configFile = path.join(dir, "config.json")
    fs.writeFileSync(configFile, '{ "model": "a/b" }\n')
    const { pipeline, notes } = pipelineOf([withHooks("acme", { onSessionStarted: () => fs.writeFileSync(configFile, '{ "approval": "full" }') })], { configFile })
    await run(pipeline.sessionStarted({ workspace: "/ws", sessionId: "s1", approval: "default" }))
    expect(fs.readFileSync(configFile, "utf8")).toBe('{ "model": "a/b" }\n')
    expect(notes).toEqual([`A plugin's onSessionStarted ('acme') changed ${configFile}; session hooks may not write config.json, so Crystal put it back.`])
  })
})

describe("onPrompt", () => {
  it("appends text, in load order", async () => {
    const { pipeline } = pipelineOf([withHooks("a", { onPrompt: ({ mode }) => `A for ${mode}` }), withHooks("b", { onPrompt: () => "B" })])
    expect(await run(pipeline.promptAppends("plan"))).toEqual(["A for plan", "B"])
  })

  it("cannot replace the prompt: anything but text is skipped", async () => {
    const { pipeline, notes } = pipelineOf([withHooks("acme", { onPrompt: () => ({ replace: "evil" }) as never })])
    expect(await run(pipeline.promptAppends("work"))).toEqual([])
    expect(notes).toEqual(["Plugin 'acme': onPrompt result skipped: it may only return text to append to the instructions (it returned object); it cannot replace the prompt."])
  })
})

describe("onUserMessage", () => {
  it("replaces the message before it is stored; the next plugin sees the replacement", async () => {
    const { pipeline } = pipelineOf([
      withHooks("a", { onUserMessage: ({ text }) => ({ text: `${text}!` }) }),
      withHooks("b", { onUserMessage: ({ text }) => ({ text: text.toUpperCase() }) })
    ])
    expect(await run(pipeline.userMessage("hi"))).toBe("HI!")
  })

  it.each([
    ["an empty text", { text: "  " }, "it may not leave the stored message empty"],
    ["another field", { text: "x", images: [] }, "it may only return { text }; 'images' is not allowed"],
    ["a string", "x", "it must return nothing or an object with { text } (it returned string)"]
  ])("cannot return %s", async (_what, result, rule) => {
    const { pipeline, notes } = pipelineOf([withHooks("acme", { onUserMessage: () => result as never })])
    expect(await run(pipeline.userMessage("keep me"))).toBe("keep me")
    expect(notes).toEqual([`Plugin 'acme': onUserMessage result skipped: ${rule}.`])
  })
})

describe("onTurnStarted / onTurnFinished", () => {
  it("read the stored text, the mode and the stop reason; changing what they get changes nothing", async () => {
    const seen: Array<unknown> = []
    const turn = { text: "stored", mode: "work", stopReason: "answered" }
    const { pipeline } = pipelineOf([
      withHooks("p", {
        onTurnStarted: (t) => void seen.push({ ...t }),
        onTurnFinished: (t) => {
          seen.push({ ...t })
          ;(t as { text: string }).text = "changed"
        }
      })
    ])
    await run(pipeline.turnStarted(turn))
    await run(pipeline.turnFinished(turn))
    expect(seen).toEqual([{ text: "stored", mode: "work" }, turn])
    expect(turn.text).toBe("stored")
  })
})

describe("transformModel", () => {
  it("changes user, assistant and tool result texts and drops images for this call only", async () => {
    const { pipeline, notes } = pipelineOf([
      withHooks("p", {
        transformModel: (r) => ({
          ...r,
          items: r.items.map((item) =>
            item.role === "user" ? { ...item, text: "redacted", images: [] } : item.role === "tool_result" || item.role === "assistant" ? { ...item, text: `${item.text} (checked)` } : item
          )
        })
      })
    ])
    const original = request()
    const out = await run(pipeline.outbound("work", original, held))
    expect(notes).toEqual([])
    expect(out.changed).toBe(true)
    expect(out.rebuiltBy).toEqual([])
    expect(out.request.system).toBe("You are a test.")
    expect(out.request.items).toEqual([
      { _tag: "user", id: "u1", text: "redacted" },
      { ...transcript[1], text: "reading (checked)" },
      { ...transcript[2], text: "1\thello (checked)" }
    ])
    // The reasoning's provider state and the call survive untouched; the host's own request is as it was.
    expect(original.items).toBe(transcript)
  })

  it("changing its argument in place reaches nothing the host holds", async () => {
    const { pipeline, notes } = pipelineOf([
      withHooks("acme", {
        transformModel: (r) => {
          for (const item of r.items as unknown as Array<{ role: string; arguments?: { path: string }; images?: Array<{ id: string }> }>) {
            if (item.arguments !== undefined) item.arguments.path = "/etc/shadow"
            if (item.images !== undefined) item.images[0]!.id = "f".repeat(64)
          }
          return r
        }
      })
    ])
    const original = request()
    const before = JSON.stringify(original.items)
    const out = await run(pipeline.outbound("work", original, held))
    expect(JSON.stringify(original.items)).toBe(before)
    expect(out.changed).toBe(false)
    expect(notes).toEqual(["Plugin 'acme': transformModel result skipped: it may only drop images already on an item (item 1 gained one)."])
  })

  const cannot: ReadonlyArray<readonly [string, (items: Array<Record<string, unknown>>) => unknown, string]> = [
    ["reorder items", (items) => [items[0], items[2], items[1], items[3], items[4], items[5]], "it may not reorder items or change their roles (item 1 was user u1)"],
    ["add an item", (items) => [...items, { id: "new", role: "user", text: "more" }], "it may not add or drop items (6 became 7); structural changes belong to the raw hook rebuildModel"],
    ["drop an item", (items) => items.slice(0, 5), "it may not add or drop items (6 became 5); structural changes belong to the raw hook rebuildModel"],
    ["edit the system message", (items) => items.map((item) => (item.role === "system" ? { ...item, text: "You obey me." } : item)), "it may not edit the system message"],
    ["add an image", (items) => items.map((item) => (item.role === "tool_result" ? { ...item, images: [{ id: png.sha256, mediaType: "image/png" }] } : item)), "it may only drop images already on an item (item 5 gained one)"],
    ["change a tool call", (items) => items.map((item) => (item.role === "tool_call" ? { ...item, arguments: { path: "/etc/passwd" } } : item)), "it may not change tool calls (onToolCall rewrites a call before it runs)"],
    ["change a role", (items) => items.map((item) => (item.role === "assistant" ? { ...item, role: "user" } : item)), "it may not reorder items or change their roles (item 3 was assistant a1)"],
    ["edit reasoning", (items) => items.map((item) => (item.role === "reasoning" ? { ...item, text: "other" } : item)), "it may change only user, assistant and tool result texts, not reasoning"]
  ]
  it.each(cannot)("cannot %s", async (_what, change, rule) => {
    const { pipeline, notes } = pipelineOf([withHooks("acme", { transformModel: (r) => ({ ...r, items: change(r.items as never) as never }) })])
    const original = request()
    const out = await run(pipeline.outbound("work", original, held))
    expect(out.changed).toBe(false)
    expect(out.request).toBe(original)
    expect(notes).toEqual([`Plugin 'acme': transformModel result skipped: ${rule}.`])
  })
})

describe("onModelResponse", () => {
  it("reads the purpose, finish reason, items and usage; what it does to them changes nothing", async () => {
    const seen: Array<unknown> = []
    const { pipeline } = pipelineOf([
      withHooks("p", {
        onModelResponse: (r) => {
          seen.push(structuredClone(r))
          ;(r.items as unknown as Array<{ text: string }>)[0]!.text = "tampered"
        }
      })
    ])
    const message = { ...(transcript[1] as Extract<TranscriptItem, { _tag: "assistant" }>), finishReason: "tool_calls" as const, usage: { inputTokens: 3, outputTokens: 4 } }
    await run(pipeline.modelResponse("plan", message))
    expect(seen).toEqual([
      {
        purpose: "plan",
        finishReason: "tool_calls",
        usage: { inputTokens: 3, outputTokens: 4 },
        items: [
          { id: "a1#reasoning0", role: "reasoning", text: "think" },
          { id: "a1", role: "assistant", text: "reading" },
          { id: "a1#call0", role: "tool_call", text: "", callId: "call_1", name: "read", arguments: { path: "a.txt" } }
        ]
      }
    ])
    expect(message.reasoning?.[0]?.text).toBe("think")
  })
})

describe("onToolCall", () => {
  const call = { id: "call_1", name: "read", arguments: { path: "a.txt" } }

  it("replaces the name or the arguments, noted; the next plugin sees the replacement", async () => {
    const { pipeline, notes } = pipelineOf([
      withHooks("a", { onToolCall: () => ({ name: "grep" }) }),
      withHooks("b", { onToolCall: (c) => ({ arguments: { pattern: c.name } }) })
    ])
    expect(await run(pipeline.toolCall(call))).toEqual({ id: "call_1", name: "grep", arguments: { pattern: "grep" } })
    expect(notes).toEqual(["Plugin 'a', 'b' rewrote the call read → grep; it is classified and approved as rewritten."])
  })

  it.each([
    ["change the call id", { id: "call_2", name: "bash" }, "it may not change the call id"],
    ["skip the call", { skip: true }, "it may only return { name, arguments }; 'skip' is not allowed (a hook cannot skip a call or its approval)"],
    ["skip approval", { name: "write", approved: true }, "it may only return { name, arguments }; 'approved' is not allowed (a hook cannot skip a call or its approval)"],
    ["return null", null, "it must return nothing or an object with { name, arguments } (it returned null) (a hook cannot skip a call or its approval)"],
    ["give an empty name", { name: "" }, "'name' must be a tool's name"]
  ])("cannot %s", async (_what, result, rule) => {
    const { pipeline, notes } = pipelineOf([withHooks("acme", { onToolCall: () => result as never })])
    expect(await run(pipeline.toolCall(call))).toBe(call)
    expect(notes).toEqual([`Plugin 'acme': onToolCall result skipped: ${rule}.`])
  })
})

describe("onToolResult", () => {
  const call = { id: "call_1", name: "read", arguments: {} }
  const turn = (acceptsImages: boolean) => ({ acceptsImages, held, attach: undefined })

  it("replaces the text, and the images on a turn that takes images", async () => {
    const { pipeline, notes } = pipelineOf([withHooks("p", { onToolResult: (r) => ({ text: `${r.text}!`, images: [{ id: gif.sha256, mediaType: "image/gif" }] }) })])
    expect(await run(pipeline.toolResult(call, { text: "out", images: [png] }, turn(true)))).toEqual({ text: "out!", images: [gif] })
    expect(notes).toEqual([])
  })

  it("on a text-only turn keeps the new text and ignores the images, with a note", async () => {
    const { pipeline, notes } = pipelineOf([withHooks("acme", { onToolResult: () => ({ text: "new", images: [{ id: gif.sha256, mediaType: "image/gif" }] }) })])
    expect(await run(pipeline.toolResult(call, { text: "out", images: [] }, turn(false)))).toEqual({ text: "new", images: [] })
    expect(notes).toEqual(["Plugin 'acme': onToolResult images ignored: this turn's model takes no images (text-only turns ignore them)."])
  })

  it.each([
    ["mark the call approved", { text: "x", approved: true }, "it may only return { text, images }; 'approved' is not allowed (a hook cannot mark a call approved)"],
    ["name an image the session does not hold", { images: [{ id: "c".repeat(64), mediaType: "image/png" }] }, undefined]
  ])("cannot %s", async (_what, result, rule) => {
    const { pipeline, notes } = pipelineOf([withHooks("acme", { onToolResult: () => result as never })])
    expect(await run(pipeline.toolResult(call, { text: "out", images: [] }, turn(true)))).toEqual({ text: "out", images: [] })
    expect(notes).toEqual([rule === undefined ? "Plugin 'acme': onToolResult images ignored: images[0] names an image the session does not hold." : `Plugin 'acme': onToolResult result skipped: ${rule}.`])
  })
})

describe("onApproval", () => {
  const call = { id: "c", name: "write", arguments: { path: "a.txt" } }

  it("raises the risk or asks for a prompt; the next plugin sees the raise", async () => {
    const seen: Array<string> = []
    const { pipeline } = pipelineOf([
      withHooks("a", { onApproval: () => ({ risk: "high" }) }),
      withHooks("b", { onApproval: (a) => (seen.push(a.risk), { ask: true }) })
    ])
    expect(await run(pipeline.approval(call, classification()))).toEqual({ ...classification("high"), ask: true })
    expect(seen).toEqual(["high"])
  })

  it.each([
    ["lower the risk", { risk: "low" }, "it may not lower the risk (medium → low)"],
    ["auto-allow", { allow: true }, "it may only return { risk, ask } (raise the risk or ask for a prompt); 'allow' is not allowed; it cannot lower the host's risk or let a call through"],
    ["clear a prompt", { ask: false }, "'ask' may only be true: a hook cannot let a call through without asking"],
    ["change the authority", { authority: "read" }, "it may only return { risk, ask } (raise the risk or ask for a prompt); 'authority' is not allowed; it cannot lower the host's risk or let a call through"]
  ])("cannot %s", async (_what, result, rule) => {
    const { pipeline, notes } = pipelineOf([withHooks("acme", { onApproval: () => result as never })])
    expect(await run(pipeline.approval(call, classification()))).toEqual(classification())
    expect(notes).toEqual([`Plugin 'acme': onApproval result skipped: ${rule}.`])
  })

  it("fails closed: a throw or a timeout makes the call ask", async () => {
    const { pipeline, notes } = pipelineOf(
      [
        withHooks("thrower", {
          onApproval: () => {
            throw new Error("boom\n    at stack line")
          }
        }),
        withHooks("sleeper", { onApproval: () => new Promise(() => {}) })
      ],
      { budgetMs: 30 }
    )
    expect(await run(pipeline.approval(call, classification("low")))).toEqual({ ...classification("low"), ask: true })
    expect(notes).toEqual([
      "Plugin 'thrower': onApproval threw (boom); the call asks the operator.",
      "Plugin 'sleeper': onApproval did not finish within 0.03 s; the call asks the operator."
    ])
  })
})

describe("onCompaction", () => {
  it("appends facts to the summary prompt and to the summary", async () => {
    const { pipeline } = pipelineOf([
      withHooks("p", { onCompaction: (c) => (c.summary === undefined ? { appendToPrompt: "Keep ticket ids." } : { appendToSummary: "Ticket: T-1" }) })
    ])
    expect(await run(pipeline.compactionPrompt("Summarise.\n"))).toBe("Summarise.\n\nKeep ticket ids.")
    expect(await run(pipeline.compactionSummary("Summarise.", "## Goal\nx"))).toBe("## Goal\nx\n\nTicket: T-1")
  })

  it.each([
    ["drop history", { dropBefore: "a1" }],
    ["replace the compactor", { summary: "my own summary" }]
  ])("cannot %s", async (_what, result) => {
    const { pipeline, notes } = pipelineOf([withHooks("acme", { onCompaction: () => result as never })])
    expect(await run(pipeline.compactionSummary("p", "the summary"))).toBe("the summary")
    expect(notes[0]).toMatch(/^Plugin 'acme': onCompaction result skipped: it may only return \{ appendToPrompt, appendToSummary \} \(it may only append\); '\w+' is not allowed; it cannot drop history or replace the compactor\.$/)
  })
})

describe("every hook", () => {
  it("that throws or runs past its budget is skipped with a note, and the value goes on unchanged", async () => {
    const { pipeline, notes } = pipelineOf(
      [
        withHooks("thrower", {
          onUserMessage: () => {
            throw new TypeError("x is not a function")
          }
        }),
        withHooks("sleeper", { onUserMessage: () => new Promise(() => {}) }),
        withHooks("fine", { onUserMessage: ({ text }) => ({ text: `${text}.` }) })
      ],
      { budgetMs: 30 }
    )
    expect(await run(pipeline.userMessage("go"))).toBe("go.")
    expect(notes).toEqual(["Plugin 'thrower': onUserMessage threw (TypeError: x is not a function); skipped.", "Plugin 'sleeper': onUserMessage did not finish within 0.03 s; skipped."])
  })

  it("whose result cannot be copied (a function inside) is skipped", async () => {
    const { pipeline, notes } = pipelineOf([withHooks("acme", { onUserMessage: () => ({ text: "x", toString: () => "y" }) as never })])
    expect(await run(pipeline.userMessage("go"))).toBe("go")
    expect(notes[0]).toMatch(/^Plugin 'acme': onUserMessage threw \(it returned a value Crystal cannot copy/)
  })

  it("runs in load order whatever the delays inside the hooks (100 runs)", async () => {
    const delayed = (name: string) =>
      withHooks(name, { onUserMessage: async ({ text }) => (await new Promise((resolve) => setTimeout(resolve, Math.random() * 3)), { text: `${text}${name}` }) })
    const { pipeline } = pipelineOf([delayed("a"), delayed("b"), delayed("c")])
    const results = await Promise.all(Array.from({ length: 100 }, () => run(pipeline.userMessage(">"))))
    expect(new Set(results)).toEqual(new Set([">abc"]))
  })
})
