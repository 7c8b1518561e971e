import { describe, expect, it } from "vitest"
import { secretValues, shellEnvironment } from "../../../src/bash/shell-env.ts"

const env = {
  PATH: "/usr/bin:/bin",
  HOME: "/home/me",
  LANG: "C.UTF-8",
  LC_ALL: "C.UTF-8",
  OPENAI_API_KEY: "sk-openai-0123456789",
  ANTHROPIC_API_KEY: "sk-ant-0123456789",
  GOOGLE_API_KEY: "goog-0123456789",
  MISTRAL_API_KEY: "mistral-0123456789",
  ANTHROPIC_AUTH_TOKEN: "auth-token-0123456789",
  CORP_LLM_TOKEN: "corp-0123456789",
  AWS_SECRET_ACCESS_KEY: "aws-0123456789",
  AWS_REGION: "eu-west-1",
  NODE_ENV: "test",
  SHORT_API_KEY: "abc"
}

const config = {
  providers: { corp: { apiKeyEnv: "CORP_LLM_TOKEN", headers: { Authorization: "Bearer hdr-secret-0123456789", Accept: "application/json" } } },
  shellEnv: { exclude: ["AWS_SECRET_*"] }
}

describe("shellEnvironment", () => {
  it("passes everything but provider keys, apiKeyEnv variables and the excluded names", () => {
    expect(shellEnvironment(config, env)).toEqual({
      PATH: "/usr/bin:/bin",
      HOME: "/home/me",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      AWS_REGION: "eu-west-1",
      NODE_ENV: "test"
    })
  })

  it("with inherit false keeps only the base; a list adds names; set comes last", () => {
    expect(shellEnvironment({ shellEnv: { inherit: false, set: { CI: "1" } } }, env)).toEqual({
      PATH: "/usr/bin:/bin",
      HOME: "/home/me",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      CI: "1"
    })
    expect(shellEnvironment({ shellEnv: { inherit: ["NODE_*", "OPENAI_API_KEY"] } }, env)).toEqual({
      PATH: "/usr/bin:/bin",
      HOME: "/home/me",
      LANG: "C.UTF-8",
      LC_ALL: "C.UTF-8",
      NODE_ENV: "test"
    })
  })
})

describe("secretValues", () => {
  it("are the values of the denied variables and credential headers, short values aside", () => {
    expect(secretValues(config, env).sort()).toEqual(
      [
        "sk-openai-0123456789",
        "sk-ant-0123456789",
        "goog-0123456789",
        "mistral-0123456789",
        "auth-token-0123456789",
        "corp-0123456789",
        "aws-0123456789",
        "hdr-secret-0123456789"
      ].sort()
    )
  })
})
