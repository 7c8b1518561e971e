/**
 * web_fetch over HTTPS in the compiled binary, with a certificate made by openssl for the test: it
 * connects to the checked address yet verifies the certificate against the URL's host name, and a
 * certificate nobody vouches for, or one for another name, is refused.
 */
import { spawnSync } from "node:child_process"
import * as fs from "node:fs/promises"
import * as https from "node:https"
import type { AddressInfo } from "node:net"
import * as path from "node:path"
import { afterEach, describe, expect, it } from "vitest"
import { jsonLines, makeSandbox, runCrystal, writeLocalConfig } from "../support/crystal.ts"
import { startFakeLlm } from "../support/fake-llm/server.ts"
import { tempDir } from "../support/temp.ts"

const cleanups: Array<() => Promise<void>> = []
afterEach(async () => {
  for (const cleanup of cleanups.splice(0)) await cleanup()
})

const openssl = spawnSync("openssl", ["version"]).status === 0

/** A self-signed certificate for "localhost" only (no IP address in it), and an HTTPS server on 127.0.0.1 using it. */
const secureSite = async () => {
  const dir = await tempDir("crystal-tls-")
  const [key, cert] = [path.join(dir, "key.pem"), path.join(dir, "cert.pem")]
  const made = spawnSync("openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", key, "-out", cert, "-days", "2", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost"])
  expect(made.status, made.stderr.toString()).toBe(0)
  const server = https.createServer({ key: await fs.readFile(key), cert: await fs.readFile(cert) }, (_, response) => {
    response.writeHead(200, { "content-type": "text/plain" }).end("secure page")
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  cleanups.push(() => new Promise<void>((resolve) => server.close(() => resolve())))
  return { cert, port: (server.address() as AddressInfo).port }
}

const fetchOnce = async (url: string, allowPrivate: ReadonlyArray<string>, env: Record<string, string>): Promise<string> => {
  const fake = await startFakeLlm()
  cleanups.push(() => fake.close())
  const sandbox = await makeSandbox()
  await writeLocalConfig(sandbox, fake.url, { webFetch: { allowPrivate } })
  fake.script([{ toolCalls: [{ name: "web_fetch", arguments: { url } }] }, { text: "ok" }])
  const result = await runCrystal(sandbox, ["run", "--approval", "full", "--format", "json", "fetch"], { env })
  expect(result.code).toBe(0)
  return String(jsonLines(result.stdout).find((event) => event["type"] === "tool_result")?.["output"])
}

describe.runIf(openssl)("web_fetch over HTTPS in the compiled binary", () => {
  it("verifies the certificate against the URL's host while connecting to the checked address", async () => {
    const { cert, port } = await secureSite()
    const trusted = { NODE_EXTRA_CA_CERTS: cert }
    expect(await fetchOnce(`https://localhost:${port}/`, ["localhost"], trusted)).toContain("secure page")
    expect(await fetchOnce(`https://localhost:${port}/`, ["localhost"], {})).toMatch(/^web_fetch could not fetch https:\/\/localhost:\d+\/: .*DEPTH_ZERO_SELF_SIGNED_CERT/)
    const mismatch = await fetchOnce(`https://127.0.0.1:${port}/`, ["127.0.0.1"], trusted)
    expect(mismatch).toMatch(/^web_fetch could not fetch https:\/\/127\.0\.0\.1:\d+\/: .*ERR_TLS_CERT_ALTNAME_INVALID/)
  })
})
