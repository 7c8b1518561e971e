import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import { parseAddress, privateKind } from "../../../src/config/address-ranges.ts"
import { parseConfigText } from "../../../src/config/load.ts"

const file = "/home/u/.crystal/config.json"
const left = (text: string): string => {
  const result = parseConfigText(file, text)
  return Either.isLeft(result) ? result.left.message : "accepted"
}

describe("the addresses web_fetch refuses", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["127.255.0.9", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["172.31.255.255", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "link-local (cloud metadata)"],
    ["100.100.100.200", "shared (carrier-grade NAT; cloud metadata lives here too)"],
    ["0.0.0.0", "unspecified (it reaches this machine)"],
    ["::", "unspecified (it reaches this machine)"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["0:0:0:0:0:0:0:1", "loopback"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:7f00:1", "loopback"],
    ["::ffff:169.254.169.254", "link-local (cloud metadata)"],
    ["64:ff9b::10.0.0.1", "private"],
    ["::127.0.0.1", "loopback"],
    ["fd00:ec2::254", "unique-local (private)"],
    ["fc00::1", "unique-local (private)"],
    ["fe80::1%eth0", "link-local"],
    ["ff02::1", "multicast"]
  ])("%s is %s", (text, kind) => {
    const address = parseAddress(text)
    expect(address).toBeDefined()
    expect(privateKind(address ?? 0n)).toBe(kind)
  })

  it.each(["1.1.1.1", "172.32.0.1", "172.15.255.255", "192.169.0.1", "8.8.8.8", "2606:4700::1111", "::ffff:8.8.8.8", "64:ff9b::8.8.8.8"])("%s is public", (text) => {
    expect(privateKind(parseAddress(text) ?? 0n)).toBeUndefined()
  })

  it.each(["localhost", "example.com", "1.2.3", "256.1.1.1", "01.2.3.4", "::g", "", "1:2:3:4:5:6:7:8:9", "1::2::3", "12345::", "::1.2.3", "1:2:3:4:5:6:7::8", "fe80::1%", ":::"])("%s is no address", (text) => {
    expect(parseAddress(text)).toBeUndefined()
  })
})

describe("webFetch in config.json", () => {
  it("takes false, true and a list of hosts, addresses and ranges", () => {
    expect(left('{"webFetch": false}')).toBe("accepted")
    expect(left('{"webFetch": true}')).toBe("accepted")
    expect(left('{"webFetch": {"allowPrivate": ["127.0.0.1", "10.0.0.0/8", "fd00::/8", "::1", "intranet.example", "localhost"]}}')).toBe("accepted")
  })

  it.each([
    ['{"webFetch": {"allowPrivate": ["10.0.0.0/33"]}}', /webFetch\.allowPrivate\[0\]: "10\.0\.0\.0\/33" is not an IP address or CIDR range/],
    ['{"webFetch": {"allowPrivate": ["http://x"]}}', /webFetch\.allowPrivate\[0\]: .* is not an IP address or CIDR range/],
    ['{"webFetch": {"allowPrivate": ["a b"]}}', /webFetch\.allowPrivate\[0\]: "a b" is not a host name, IP address or CIDR range/],
    ['{"webFetch": {"allow": []}}', /webFetch\.allow: is unexpected/],
    ['{"webFetch": "no"}', /webFetch: /]
  ])("refuses %s with one line naming the field", (text, pattern) => {
    const message = left(text)
    expect(message).toMatch(pattern)
    expect(message.startsWith(`${file}: webFetch`)).toBe(true)
    expect(message).not.toContain("\n")
  })
})
