/**
 * The connection start-up opens before the runtime loads goes where the session will send its
 * requests: for each config.json and command line, the base URL src/cli/early-connect.ts expects
 * is the one prepareSession resolves, and where the session refuses to start (or start-up cannot
 * tell) none is expected.
 */
import * as fs from "node:fs/promises"
import * as path from "node:path"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { describe, expect, it } from "vitest"
import { prepareSession } from "../../../layers/prepare.ts"
import { expectedBaseURL } from "../../../src/cli/early-connect.ts"
import { defaultSessionFlags, type SessionFlags } from "../../../src/cli/flags.ts"
import { tempDir } from "../../support/temp.ts"

interface Case {
  readonly name: string
  /** config.json's text; undefined for no file. */
  readonly config?: string
  readonly flags?: Partial<SessionFlags>
  readonly env?: Record<string, string>
  /** What both should say: the session's base URL, or undefined when the session refuses to start. */
  readonly baseURL: string | undefined
  /**
   * Where start-up guesses otherwise: only for a config.json the session refuses (start-up does not
   * validate it), and never an http(s) origin, so src/providers/preconnect.ts opens nothing.
   */
  readonly early?: string
}

const local = { protocol: "openai-chat", baseURL: "http://127.0.0.1:8080/v1", models: { bench: {} } }
const other = { protocol: "anthropic", baseURL: "http://127.0.0.1:9090", apiKeyEnv: "OTHER_KEY", models: { big: {} } }
const json = (value: unknown) => JSON.stringify(value)

const cases: ReadonlyArray<Case> = [
  { name: "config.json's model", config: json({ model: "local/bench", providers: { local } }), baseURL: "http://127.0.0.1:8080/v1" },
  { name: "the only configured model", config: json({ providers: { local } }), baseURL: "http://127.0.0.1:8080/v1" },
  { name: "a bare model id", config: json({ model: "bench", providers: { local } }), baseURL: "http://127.0.0.1:8080/v1" },
  {
    name: "--model over config.json's model",
    config: json({ model: "local/bench", providers: { local, other } }),
    flags: { model: "other/big" },
    env: { OTHER_KEY: "k" },
    baseURL: "http://127.0.0.1:9090"
  },
  {
    name: "a provider whose key is missing",
    config: json({ model: "other/big", providers: { other } }),
    baseURL: undefined
  },
  { name: "a built-in provider found by its key", env: { ANTHROPIC_API_KEY: "k" }, baseURL: "https://api.anthropic.com" },
  {
    name: "a built-in provider's base URL from the environment",
    config: json({ model: "openai/gpt-5.4" }),
    env: { OPENAI_API_KEY: "k", OPENAI_BASE_URL: "http://127.0.0.1:7070/v1" },
    baseURL: "http://127.0.0.1:7070/v1"
  },
  {
    name: "a built-in provider's model with a config.json override of its base URL",
    config: json({ model: "deepseek/deepseek-chat", providers: { deepseek: { baseURL: "http://127.0.0.1:6060" } } }),
    env: { DEEPSEEK_API_KEY: "k" },
    baseURL: "http://127.0.0.1:6060"
  },
  { name: "an unknown provider", config: json({ model: "nowhere/x", providers: { local } }), baseURL: undefined },
  { name: "two models and no choice", config: json({ providers: { local, other } }), env: { OTHER_KEY: "k" }, baseURL: undefined },
  { name: "config.json that is not JSON", config: "{ model: ", baseURL: undefined },
  { name: "config.json that is not an object", config: "[1]", baseURL: undefined },
  { name: "a model that is not a string", config: json({ model: 42, providers: { local } }), baseURL: undefined },
  {
    name: "a base URL that is not http(s)",
    config: json({ model: "local/bench", providers: { local: { ...local, baseURL: "ftp://127.0.0.1/v1" } } }),
    baseURL: undefined,
    early: "ftp://127.0.0.1/v1"
  }
]

const setUp = async (config: string | undefined) => {
  const root = await tempDir("crystal-early-connect-")
  const home = path.join(root, "home")
  const workspace = path.join(root, "workspace")
  await fs.mkdir(home)
  await fs.mkdir(workspace)
  if (config !== undefined) await fs.writeFile(path.join(home, "config.json"), config)
  return { home, workspace }
}

/** The base URL the session resolves, or undefined when it refuses to start. */
const sessionBaseURL = async (flags: SessionFlags, workspace: string, env: Record<string, string>): Promise<string | undefined> => {
  const prepared = await Effect.runPromise(Effect.either(prepareSession(flags, workspace, env)))
  return Either.isRight(prepared) ? prepared.right.model.provider.baseURL : undefined
}

describe("the early connection", () => {
  it.each(cases)("goes where the session sends: $name", async ({ config, flags, env, baseURL, early }) => {
    const { home, workspace } = await setUp(config)
    const allFlags = { ...defaultSessionFlags, ...flags }
    const fullEnv = { CRYSTAL_HOME: home, ...env }
    expect(await sessionBaseURL(allFlags, workspace, fullEnv)).toBe(baseURL)
    expect(expectedBaseURL(allFlags, fullEnv)).toBe(early ?? baseURL)
  })

  it("is not opened for a resumed session (its model is in its file) nor with nothing configured", async () => {
    const { home } = await setUp(json({ model: "local/bench", providers: { local } }))
    expect(expectedBaseURL({ ...defaultSessionFlags, resume: "abc" }, { CRYSTAL_HOME: home })).toBeUndefined()
    expect(expectedBaseURL({ ...defaultSessionFlags, continue: true }, { CRYSTAL_HOME: home })).toBeUndefined()
    const empty = await setUp(undefined)
    expect(expectedBaseURL(defaultSessionFlags, { CRYSTAL_HOME: empty.home })).toBeUndefined()
  })
})
