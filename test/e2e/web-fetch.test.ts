/**
 * web_fetch in the compiled binary against a page server on 127.0.0.1: the HTML libraries are
 * bundled and load on first use, proxy variables are ignored, an image reaches the next request,
 * the default approval mode asks (so a headless run is refused and the model told why), a
 * private address is refused without allowPrivate, and `webFetch: false` takes the tool away.
 */
import * as http from "node:http"
import type { AddressInfo } from "node:net"
import { afterEach, describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, runCrystal, writeLocalConfig } from "../support/crystal.ts"
import { startFakeLlm, type FakeLlm } from "../support/fake-llm/server.ts"
import { makePng } from "../support/images.ts"

interface PageServer {
  readonly url: string
  readonly requests: Array<string>
  readonly close: () => Promise<void>
}

const pages: Record<string, { type: string; body: string | Buffer }> = {
  "/guide": {
    type: "text/html; charset=utf-8",
    body: `<html><head><title>The guide</title></head><body><nav>skip me nav nav</nav><article><h1>Install</h1><p>Run <code>make install</code> and then read the <a href="/faq">FAQ</a>. ${"Everything else follows from there. ".repeat(15)}</p></article></body></html>`
  },
  "/pixel.png": { type: "image/png", body: makePng(12, 8) }
}

const servers: Array<{ close: () => Promise<void> }> = []
afterEach(async () => {
  await Promise.all(servers.splice(0).map((server) => server.close()))
})

const startPages = async (): Promise<PageServer> => {
  const requests: Array<string> = []
  const server = http.createServer((request, response) => {
    requests.push(request.url ?? "")
    const page = pages[request.url ?? ""]
    if (request.url === "/hang") return
    if (page === undefined) response.writeHead(404).end()
    else response.writeHead(200, { "content-type": page.type }).end(page.body)
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const close = () => new Promise<void>((resolve) => server.close(() => resolve()))
  const result = { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`, requests, close }
  servers.push(result)
  return result
}

const fakeModel = async (): Promise<FakeLlm> => {
  const fake = await startFakeLlm()
  servers.push(fake)
  return fake
}

const toolResults = (stdout: string) => jsonLines(stdout).filter((event) => event["type"] === "tool_result")

/**
 * A proxy that would swallow the request if web_fetch used it: nothing listens on port 9. The
 * model's requests honour the variables (Bun's fetch does), so the model is reached as "localhost",
 * which NO_PROXY exempts, and the page as 127.0.0.1, which it does not.
 */
const deadProxy = { HTTP_PROXY: "http://127.0.0.1:9", http_proxy: "http://127.0.0.1:9", HTTPS_PROXY: "http://127.0.0.1:9", ALL_PROXY: "http://127.0.0.1:9", NO_PROXY: "localhost", no_proxy: "localhost" }

describe("web_fetch in the compiled binary", () => {
  it("turns a page into Markdown with the bundled libraries, connecting directly whatever the proxy variables say", async () => {
    const site = await startPages()
    const fake = await fakeModel()
    const sandbox = await makeSandbox()
    await writeLocalConfig(sandbox, fake.url.replace("127.0.0.1", "localhost"), { webFetch: { allowPrivate: ["127.0.0.1"] } })
    fake.script([{ toolCalls: [{ name: "web_fetch", arguments: { url: `${site.url}/guide` } }] }, { text: "Run make install." }])
    const result = await runCrystal(sandbox, ["run", "--approval", "full", "--format", "json", "how do I install?"], { env: deadProxy })
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    const [fetched] = toolResults(result.stdout)
    expect(fetched).toMatchObject({ name: "web_fetch", ok: true })
    const output = String(fetched?.["output"])
    expect(output).toContain("Title: The guide")
    expect(output).toContain(`Run \`make install\` and then read the [FAQ](${site.url}/faq).`)
    expect(output).not.toContain("skip me")
    expect(site.requests).toEqual(["/guide"])
  })

  it("attaches an image it fetched, and the next request carries it", async () => {
    const site = await startPages()
    const fake = await fakeModel()
    const sandbox = await makeSandbox()
    await writeLocalConfig(sandbox, fake.url, {
      model: "eye/seer",
      webFetch: { allowPrivate: ["127.0.0.0/8"] },
      providers: { eye: { protocol: "anthropic", baseURL: fake.url, apiKeyEnv: "EYE_KEY", models: { seer: { imageInput: true } } } }
    })
    fake.script([{ toolCalls: [{ name: "web_fetch", arguments: { url: `${site.url}/pixel.png` } }] }, { text: "A tiny gradient." }])
    const result = await runCrystal(sandbox, ["run", "--approval", "full", "--format", "json", "look"], { env: { EYE_KEY: "k" } })
    expect(result.stderr).toBe("")
    expect(result.code).toBe(0)
    expect(toolResults(result.stdout)[0]?.["output"]).toBe(`[Image #1] ${site.url}/pixel.png (12×8, image/png)`)
    const body = JSON.stringify(fake.requests[1]?.body)
    expect(body).toContain(makePng(12, 8).toString("base64"))
  })

  it("asks in the default approval mode: a headless run refuses it, tells the model why, and fetches nothing", async () => {
    const site = await startPages()
    const fake = await fakeModel()
    const sandbox = await makeSandbox()
    await writeLocalConfig(sandbox, fake.url, { webFetch: { allowPrivate: ["127.0.0.1"] } })
    fake.script([{ toolCalls: [{ name: "web_fetch", arguments: { url: `${site.url}/guide` } }] }, { text: "I could not read it." }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "read the guide"])
    expect(result.code).toBe(0)
    const approval = jsonLines(result.stdout).find((event) => event["type"] === "approval")
    expect(approval).toMatchObject({ name: "web_fetch", mode: "default", authority: "read", scope: "outside", summary: `fetch ${site.url}/guide` })
    expect(String(toolResults(result.stdout)[0]?.["output"])).toMatch(
      /^Denied: fetch http:\/\/127\.0\.0\.1:\d+\/guide needs the operator's approval in the default approval mode, and nobody can approve in this non-interactive run\. It would run without asking under --approval full\./
    )
    expect(site.requests).toEqual([])
  })

  it("refuses a loopback address that allowPrivate does not list, by literal and by DNS name, without connecting", async () => {
    const site = await startPages()
    const fake = await fakeModel()
    const sandbox = await makeSandbox()
    await writeLocalConfig(sandbox, fake.url)
    const port = new URL(site.url).port
    fake.script([
      {
        toolCalls: [
          { name: "web_fetch", arguments: { url: `${site.url}/guide` } },
          { name: "web_fetch", arguments: { url: `http://localhost:${port}/guide` } }
        ]
      },
      { text: "Both refused." }
    ])
    const result = await runCrystal(sandbox, ["run", "--approval", "full", "--format", "json", "read the guide"])
    expect(result.code).toBe(0)
    const outputs = toolResults(result.stdout).map((event) => String(event["output"]))
    expect(outputs[0]).toMatch(/^web_fetch refuses http:\/\/127\.0\.0\.1:\d+\/guide: 127\.0\.0\.1 is a loopback address\./)
    expect(outputs[1]).toMatch(/^web_fetch refuses http:\/\/localhost:\d+\/guide: localhost resolves to (127\.0\.0\.1|::1), a loopback address\./)
    expect(site.requests).toEqual([])
  })

  it("gives up at timeout_seconds on a server that never answers, and the run goes on", async () => {
    const site = await startPages()
    const fake = await fakeModel()
    const sandbox = await makeSandbox()
    await writeLocalConfig(sandbox, fake.url, { webFetch: { allowPrivate: ["127.0.0.1"] } })
    fake.script([{ toolCalls: [{ name: "web_fetch", arguments: { url: `${site.url}/hang`, timeout_seconds: 1 } }] }, { text: "It timed out." }])
    const result = await runCrystal(sandbox, ["run", "--approval", "full", "--format", "json", "fetch"], { timeoutMs: 30_000 })
    expect(result.code).toBe(0)
    expect(toolResults(result.stdout)[0]).toMatchObject({ ok: false, output: `web_fetch gave up on ${site.url}/hang after 1 s without a complete answer.` })
    expect(jsonLines(result.stdout).at(-2)).toMatchObject({ type: "text" })
  })

  it("is not offered when config.json says webFetch: false", async () => {
    const fake = await fakeModel()
    const sandbox = await makeSandbox()
    await writeLocalConfig(sandbox, fake.url, { webFetch: false })
    fake.script([{ text: "ok" }])
    const result = await runCrystal(sandbox, ["run", "--format", "json", "hi"])
    expect(result.code).toBe(0)
    expect(JSON.stringify(fake.requests[0]?.body)).not.toContain("web_fetch")
  })
})
