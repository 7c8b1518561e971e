/**
 * web_fetch against a real HTTP server on 127.0.0.1 (allowed by its allowPrivate, as config.json
 * would): conversion by type, redirects, the timeout, the byte cap and max_chars with spill, and
 * the address checks that refuse loopback and private addresses by literal and by DNS name.
 */
import * as fs from "node:fs/promises"
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import * as zlib from "node:zlib"
import * as Effect from "effect/Effect"
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest"
import { ApprovalPolicy } from "../../../src/approval/approval-policy.ts"
import { makeWebFetchTools } from "../../../src/tools/builtin.ts"
import { defineTool, type Tool } from "../../../src/tools/tool.ts"
import { makeWebFetch, webFetchDefaults, type WebFetchSettings } from "../../../src/tools/web-fetch.ts"
import { webFetchSpec } from "../../../src/tools/web-fetch-spec.ts"
import { cleanupFixtures, makeFixture, run, runError } from "./support.ts"

type Handler = (request: http.IncomingMessage, response: http.ServerResponse) => void
const routes = new Map<string, Handler>()
const received: Array<{ url: string; headers: http.IncomingHttpHeaders }> = []
let server: http.Server
let port = 0
let base = ""

beforeAll(async () => {
  server = http.createServer((request, response) => {
    received.push({ url: request.url ?? "", headers: request.headers })
    const handler = routes.get(request.url ?? "")
    if (handler === undefined) {
      response.writeHead(404, { "content-type": "text/plain" }).end("no such page")
      return
    }
    handler(request, response)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  port = (server.address() as AddressInfo).port
  base = `http://127.0.0.1:${port}`
})
afterAll(async () => {
  server.closeAllConnections()
  await new Promise((resolve) => server.close(resolve))
})
afterEach(async () => {
  routes.clear()
  received.length = 0
  await cleanupFixtures()
})

const page = (type: string, body: string | Buffer, headers: http.OutgoingHttpHeaders = {}): Handler => (_, response) => {
  response.writeHead(200, { "content-type": type, ...headers }).end(body)
}
const redirect = (location: string, status = 302): Handler => (_, response) => {
  response.writeHead(status, { location }).end()
}

const toolWith = (settings: Partial<WebFetchSettings> = {}): Tool =>
  defineTool({ ...webFetchSpec, run: makeWebFetch({ ...webFetchDefaults, allowPrivate: ["127.0.0.1"], ...settings }) })

/** The tool as a session makes it from config.json's webFetch. */
const configured = (allowPrivate: ReadonlyArray<string>): Tool => {
  const [tool] = makeWebFetchTools({ allowPrivate })
  if (tool === undefined) throw new Error("web_fetch was not made")
  return tool
}

const article = `<!doctype html><html><head><title>Release notes</title><style>p{}</style></head><body>
<nav><a href="/">Home</a> <a href="/about">About</a> menu menu menu</nav>
<article><h1>Version 2 is out</h1><p>This release brings <b>faster</b> builds and a <a href="docs/guide.html">new guide</a>. ${"It was a long road to get here. ".repeat(20)}</p>
<ul><li>first change</li><li>second change</li></ul><pre><code>npm install thing@2</code></pre></article>
<footer>copyright footer</footer><script>document.write("tracking")</script></body></html>`

describe("web_fetch converts what it reads by type", () => {
  it("turns an HTML page into Markdown of its main content, with absolute links", async () => {
    routes.set("/news/v2", page("text/html; charset=utf-8", article))
    const { context } = await makeFixture()
    const text = await run(toolWith(), { url: `${base}/news/v2` }, context)
    expect(text.split("\n")[0]).toBe(`${base}/news/v2 — HTTP 200 OK, text/html; charset=utf-8`)
    expect(text).toContain("Title: Release notes")
    expect(text).toContain("This release brings **faster** builds")
    expect(text).toContain(`[new guide](${base}/news/docs/guide.html)`)
    expect(text).toContain("-   first change")
    expect(text).toContain("```\nnpm install thing@2\n```")
    expect(text).not.toContain("tracking")
    expect(text).not.toContain("menu menu")
    expect(text).not.toContain("<p>")
  })

  it("falls back to the whole body when there is no article to find", async () => {
    routes.set("/tiny", page("text/html", "<html><body><div>one <i>short</i> line</div></body></html>"))
    const { context } = await makeFixture()
    expect(await run(toolWith(), { url: `${base}/tiny` }, context)).toContain("one _short_ line")
  })

  it("gives the HTML as served with raw: true", async () => {
    routes.set("/news/v2", page("text/html", article))
    const { context } = await makeFixture()
    const text = await run(toolWith(), { url: `${base}/news/v2`, raw: true }, context)
    expect(text).toContain('<nav><a href="/">Home</a>')
    expect(text).toContain('<script>document.write("tracking")</script>')
  })

  it("pretty-prints JSON, decodes gzip, and reads plain text in its charset", async () => {
    routes.set("/api", page("application/json", zlib.gzipSync(JSON.stringify({ name: "crystal", tags: ["a", "b"] })), { "content-encoding": "gzip" }))
    routes.set("/latin1", page("text/plain; charset=iso-8859-1", Buffer.from([0x63, 0x61, 0x66, 0xe9])))
    const { context } = await makeFixture()
    expect(await run(toolWith(), { url: `${base}/api` }, context)).toContain('{\n  "name": "crystal",\n  "tags": [\n    "a",\n    "b"\n  ]\n}')
    expect(await run(toolWith(), { url: `${base}/latin1` }, context)).toContain("café")
  })

  it("refuses other types, naming the type", async () => {
    routes.set("/doc.pdf", page("application/pdf", "%PDF-1.7"))
    const { context } = await makeFixture()
    expect(await runError(toolWith(), { url: `${base}/doc.pdf` }, context)).toBe(
      `web_fetch does not read application/pdf (${base}/doc.pdf): it reads HTML, JSON, text and PNG, JPEG, GIF or WebP images.`
    )
  })

  it("marks an HTTP error status as an error and still shows the page", async () => {
    const { context } = await makeFixture()
    const output = await Effect.runPromise(toolWith().run({ url: `${base}/missing` }, context))
    expect(output.isError).toBe(true)
    expect(output.text).toContain("HTTP 404")
    expect(output.text).toContain("no such page")
  })

  it("sends no cookies or credentials, only its own few headers, and the URL's host as Host", async () => {
    routes.set("/plain", page("text/plain", "hello"))
    const { context } = await makeFixture()
    await run(toolWith(), { url: `${base}/plain` }, context)
    const headers = received[0]?.headers ?? {}
    expect(Object.keys(headers).sort()).toEqual(["accept", "accept-encoding", "connection", "host", "user-agent"])
    expect(headers.host).toBe(`127.0.0.1:${port}`)
    expect(await runError(toolWith(), { url: `http://user:secret@127.0.0.1:${port}/plain` }, context)).toMatch(/sends no credentials/)
    expect(received).toHaveLength(1)
  })
})

describe("web_fetch's limits", () => {
  it("follows same-host redirects (relative ones too) and names where it started", async () => {
    routes.set("/a", redirect("/b", 301))
    routes.set("/b", redirect("c/", 302))
    routes.set("/c/", page("text/plain", "landed"))
    const { context } = await makeFixture()
    const text = await run(toolWith(), { url: `${base}/a` }, context)
    expect(text.split("\n")[0]).toBe(`${base}/c/ (redirected from ${base}/a) — HTTP 200 OK, text/plain`)
    expect(text).toContain("landed")
  })

  it("stops after five redirects", async () => {
    for (let hop = 0; hop < 7; hop++) routes.set(`/r${hop}`, redirect(`/r${hop + 1}`))
    const { context } = await makeFixture()
    expect(await runError(toolWith(), { url: `${base}/r0` }, context)).toBe(`web_fetch stopped after 5 redirects (the last one from ${base}/r5 to ${base}/r6).`)
    expect(received.map((request) => request.url)).toEqual(["/r0", "/r1", "/r2", "/r3", "/r4", "/r5"])
  })

  it("does not follow a redirect to another host (a metadata address here) and tells the model where it led", async () => {
    routes.set("/go", redirect("http://169.254.169.254/latest/meta-data/"))
    const { context } = await makeFixture()
    expect(await run(toolWith(), { url: `${base}/go` }, context)).toBe(
      `${base}/go redirects (HTTP 302) to http://169.254.169.254/latest/meta-data/, on another host: web_fetch did not follow it. Call web_fetch with that URL to read it.`
    )
    expect(await runError(toolWith(), { url: "http://169.254.169.254/latest/meta-data/" }, context)).toMatch(
      /^web_fetch refuses http:\/\/169\.254\.169\.254\/latest\/meta-data\/: 169\.254\.169\.254 is a link-local \(cloud metadata\) address\./
    )
  })

  it("refuses a redirect to another scheme", async () => {
    routes.set("/file", redirect("file:///etc/passwd"))
    const { context } = await makeFixture()
    expect(await runError(toolWith(), { url: `${base}/file` }, context)).toMatch(/which web_fetch does not follow: web_fetch reads only http:\/\/ and https:\/\/ URLs; got file:/)
  })

  it("gives up at the timeout", async () => {
    routes.set("/slow", () => undefined)
    const { context } = await makeFixture()
    expect(await runError(toolWith(), { url: `${base}/slow`, timeout_seconds: 1 }, context)).toBe(`web_fetch gave up on ${base}/slow after 1 s without a complete answer.`)
  })

  it("stops reading at the byte cap, counted after decompression", async () => {
    routes.set("/big", page("text/plain", "x".repeat(50_000)))
    routes.set("/bomb", page("text/plain", zlib.gzipSync(Buffer.alloc(20 * 1024 * 1024, 0x61)), { "content-encoding": "gzip" }))
    const { context } = await makeFixture()
    const big = await run(toolWith({ maxBytes: 1000 }), { url: `${base}/big` }, context)
    expect(big).toContain(`${"x".repeat(1000)}\n\n[the download stopped at 1000 bytes; what follows it on the server is not here]`)
    expect(big).not.toContain("x".repeat(1001))
    const bomb = await run(toolWith({ maxBytes: 4096 }), { url: `${base}/bomb`, max_chars: 200_000 }, context)
    expect(bomb).toContain("[the download stopped at 4 KiB")
  })

  it("cuts the text at max_chars and saves the whole of it where read can open it", async () => {
    const lines = Array.from({ length: 400 }, (_, i) => `line ${i + 1}`).join("\n")
    routes.set("/long", page("text/plain", lines))
    const { context, spilled } = await makeFixture()
    const text = await run(toolWith(), { url: `${base}/long`, max_chars: 500 }, context)
    const [file, saved] = [...spilled.entries()][0] ?? ["", ""]
    expect(saved).toContain("line 400")
    expect(await fs.readFile(file, "utf8")).toBe(saved)
    expect(text).toMatch(new RegExp(`\\n\\n\\[\\d+ more characters not shown \\(max_chars 500\\); the full text saved to ${file.replace(/[.]/g, "\\.")} — read it with offset=\\d+\\]$`))
    expect(text.length).toBeLessThan(700)
  })
})

describe("web_fetch's address checks", () => {
  it.each([
    [`http://127.0.0.1:PORT/p`, /127\.0\.0\.1 is a loopback address/],
    [`http://[::ffff:127.0.0.1]:PORT/p`, /::ffff:7f00:1 is a loopback address/],
    [`http://2130706433:PORT/p`, /127\.0\.0\.1 is a loopback address/],
    [`http://0x7f.1:PORT/p`, /127\.0\.0\.1 is a loopback address/],
    [`http://0.0.0.0:PORT/p`, /0\.0\.0\.0 is a unspecified/],
    [`http://localhost:PORT/p`, /localhost resolves to (127\.0\.0\.1|::1), a loopback address/]
  ])("refuses %s unless allowPrivate lists it, and connects to nothing", async (url, message) => {
    routes.set("/p", page("text/plain", "private"))
    const { context } = await makeFixture()
    const error = await runError(configured([]), { url: url.replace("PORT", String(port)) }, context)
    expect(error).toMatch(message)
    expect(error).toMatch(/config\.json's webFetch\.allowPrivate/)
    expect(received).toEqual([])
  })

  it("reaches a private host that allowPrivate lists by name, address or range", async () => {
    routes.set("/p", page("text/plain", "private page"))
    const { context } = await makeFixture()
    expect(await run(configured(["localhost"]), { url: `http://localhost:${port}/p` }, context)).toContain("private page")
    expect(await run(configured(["127.0.0.0/8"]), { url: `http://127.0.0.1:${port}/p` }, context)).toContain("private page")
    expect(await runError(configured(["10.0.0.0/8"]), { url: `http://127.0.0.1:${port}/p` }, context)).toMatch(/loopback address/)
  })

  it("classifies a call as a read outside the workspace whose session grant is the host", async () => {
    const { context } = await makeFixture()
    const classify = (url: string) => Effect.runPromise(webFetchSpec.classify({ url }, context))
    const c = await classify("https://docs.example.com/a?b=1")
    expect(c).toMatchObject({ authority: "read", scope: "outside", summary: "fetch https://docs.example.com/a?b=1", grantKey: "web_fetch:docs.example.com" })
    expect((await classify("http://docs.example.com:8080/other")).grantKey).toBe("web_fetch:docs.example.com")
    await expect(classify("ftp://docs.example.com/")).rejects.toThrow(/reads only http:\/\/ and https:\/\/ URLs; got ftp:/)
    await expect(classify("docs.example.com")).rejects.toThrow(/needs an absolute http:\/\/ or https:\/\/ URL/)
  })
  it("an allow-for-this-session answer covers that host in the default approval mode, not another one", async () => {
    const { context, workspace } = await makeFixture()
    const decisions = await Effect.runPromise(
      Effect.gen(function* () {
        const policy = yield* ApprovalPolicy
        const decide = (url: string) =>
          Effect.flatMap(webFetchSpec.classify({ url }, context), (classification) =>
            policy.decide({ toolName: "web_fetch", arguments: { url }, classification, writesThroughFence: false, mode: "work", approval: "default", conversation: Effect.succeed("") })
          )
        const before = yield* decide("https://docs.example.com/a")
        const planMode = yield* Effect.flatMap(webFetchSpec.classify({ url: "https://docs.example.com/a" }, context), (classification) =>
          policy.decide({ toolName: "web_fetch", arguments: {}, classification, writesThroughFence: false, mode: "plan", approval: "default", conversation: Effect.succeed("") })
        )
        yield* policy.rememberForSession((yield* webFetchSpec.classify({ url: "https://docs.example.com/a" }, context)).grantKey ?? "")
        return { before, planMode, same: yield* decide("http://docs.example.com:8080/b"), other: yield* decide("https://evil.example.net/a") }
      }).pipe(Effect.provide(ApprovalPolicy.layerTest(workspace)))
    )
    expect(decisions.before._tag).toBe("Ask")
    expect(decisions.planMode._tag).toBe("Ask")
    expect(decisions.same).toEqual({ _tag: "Run", by: "session" })
    expect(decisions.other._tag).toBe("Ask")
  })
})
