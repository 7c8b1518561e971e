/**
 * The answer to `initialize`: what this agent offers. Imports nothing at run time, so the start-up
 * path (./early.ts) can answer before the SDK loads; the SDK's own handler answers the same.
 */
import type { InitializeResponse } from "@agentclientprotocol/sdk"

/** ACP v1, the version of the SDK's stable entry point (test/unit/acp-mapping.test.ts holds them equal). */
export const protocolVersion = 1

export const initializeResult = (requested: number, version: string): InitializeResponse => ({
  protocolVersion: Math.min(requested, protocolVersion),
  agentCapabilities: {
    loadSession: true,
    promptCapabilities: { image: true, audio: false, embeddedContext: true },
    mcpCapabilities: { http: true, sse: true }
  },
  agentInfo: { name: "crystal", title: "Crystal", version },
  authMethods: []
})
