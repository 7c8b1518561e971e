/**
 * The model-facing definition of web_fetch (docs/web-fetch.md); its implementation (web-fetch.ts
 * and the HTML libraries) is imported on first use. A call is a read outside the workspace, so the
 * default approval mode asks, and an allow-for-this-session answer covers the URL's host.
 */
import * as Effect from "effect/Effect"
import type { Classification } from "../approval/classification.ts"
import * as P from "./params.ts"
import { everyMode, ToolError, toolSpec } from "./tool.ts"

export const webFetchToolName = "web_fetch"

/** The limits the model may choose within. */
export const webFetchLimits = { defaultMaxChars: 40_000, maxMaxChars: 200_000, defaultTimeoutSeconds: 30, maxTimeoutSeconds: 120 } as const

/** The URL the call names, when it is one web_fetch may ask for: absolute, http or https, no user name or password. */
export const webFetchURL = (text: string): URL | string => {
  if (!URL.canParse(text)) return `web_fetch needs an absolute http:// or https:// URL; got ${JSON.stringify(text)}.`
  const url = new URL(text)
  if (url.protocol !== "http:" && url.protocol !== "https:") return `web_fetch reads only http:// and https:// URLs; got ${url.protocol}.`
  if (url.username !== "" || url.password !== "") return "web_fetch sends no credentials: remove the user name and password from the URL."
  return url
}

/** The session grant key of a fetch: the host, so "allow for this session" covers that host only (any port, path or scheme). */
export const webFetchGrantKey = (url: URL): string => `${webFetchToolName}:${url.hostname}`

/** The host a web_fetch grant key names; undefined for any other key. */
export const webFetchGrantHost = (grantKey: string | undefined): string | undefined =>
  grantKey?.startsWith(`${webFetchToolName}:`) === true ? grantKey.slice(webFetchToolName.length + 1) : undefined

export const webFetchSpec = toolSpec({
  name: webFetchToolName,
  modes: everyMode,
  description:
    "Fetch a web page or file by URL (GET, http or https) and read it: HTML comes back as Markdown of the page's main content, JSON pretty-printed, " +
    "plain text as it is, images attached for you to see. Other types are refused. Redirects to the same host are followed; a redirect to another " +
    "host is reported for you to fetch with a new call. Long results are cut at max_chars and the rest saved to a file you can read.",
  parameters: P.object({
    url: P.string("The absolute http:// or https:// URL."),
    raw: P.optional(P.boolean("true: the text as served (HTML source), not converted to Markdown.")),
    max_chars: P.optional(
      P.integer(`The most characters to return (default ${webFetchLimits.defaultMaxChars}).`, { minimum: 100, maximum: webFetchLimits.maxMaxChars })
    ),
    timeout_seconds: P.optional(
      P.integer(`Give up after this many seconds (default ${webFetchLimits.defaultTimeoutSeconds}).`, { minimum: 1, maximum: webFetchLimits.maxTimeoutSeconds })
    )
  }),
  classify: (args) => {
    const url = webFetchURL(args.url)
    if (typeof url === "string") return Effect.fail(new ToolError({ message: url }))
    const classification: Classification = {
      risk: "medium",
      authority: "read",
      scope: "outside",
      summary: `fetch ${url.href}`,
      paths: [],
      grantKey: webFetchGrantKey(url)
    }
    return Effect.succeed(classification)
  }
})
