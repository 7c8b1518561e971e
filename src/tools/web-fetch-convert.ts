/**
 * What web_fetch hands the model for a body, by its Content-Type: HTML as Markdown (the page's main
 * content by Readability, else the whole body), JSON pretty-printed, text as served, images as
 * bytes for the media store; anything else is refused naming its type. The HTML libraries load
 * here, on the first HTML page, never at start-up.
 */
import { isImageMime } from "../media/image-type.ts"

export type Converted =
  | { readonly _tag: "Text"; readonly text: string; readonly title?: string | undefined }
  | { readonly _tag: "Image"; readonly bytes: Uint8Array }
  | { readonly _tag: "Refused"; readonly reason: string }

const textTypes = /^(text\/|application\/(xml|javascript|x-javascript|ecmascript|x-sh|toml|yaml|x-yaml|sql|graphql)$)|\+xml$/
const jsonTypes = /^(application\/json|text\/json)$|\+json$/
const htmlTypes = /^(text\/html|application\/xhtml\+xml)$/

const mimeOf = (contentType: string): string => (contentType.split(";")[0] ?? "").trim().toLowerCase()

const charsetOf = (contentType: string): string => /;\s*charset\s*=\s*"?([^";\s]+)/i.exec(contentType)?.[1] ?? "utf-8"

const decode = (body: Uint8Array, contentType: string): string => {
  try {
    // Node's types list a few labels; TextDecoder takes every WHATWG label and throws on the rest (caught below).
    return new TextDecoder(charsetOf(contentType) as "utf-8").decode(body)
  } catch {
    return new TextDecoder("utf-8").decode(body)
  }
}

/** Relative links and image sources made absolute against the page's address, so the model can fetch them. */
const absolutize = (document: { querySelectorAll(selector: string): Iterable<{ getAttribute(n: string): string | null; setAttribute(n: string, v: string): void }> }, base: URL): void => {
  for (const [selector, attribute] of [["a[href]", "href"], ["img[src]", "src"]] as const) {
    for (const element of document.querySelectorAll(selector)) {
      const value = element.getAttribute(attribute)
      if (value !== null && URL.canParse(value, base.href)) element.setAttribute(attribute, new URL(value, base).href)
    }
  }
}

export const htmlToMarkdown = async (html: string, base: URL): Promise<{ readonly markdown: string; readonly title: string | undefined }> => {
  const [{ parseHTML }, { Readability }, turndownModule] = await Promise.all([import("linkedom"), import("@mozilla/readability"), import("turndown")])
  const { document } = parseHTML(html)
  for (const element of document.querySelectorAll("script, style, noscript, template, iframe")) element.remove()
  absolutize(document, base)
  const title = document.title.trim() === "" ? undefined : document.title.trim()
  // linkedom's document is the DOM subset Readability reads; its types are not lib.dom's Document.
  const article = new Readability(document.cloneNode(true) as unknown as ConstructorParameters<typeof Readability>[0]).parse()
  const main = article?.content !== undefined && article.content !== null && (article.textContent ?? "").trim() !== "" ? article.content : document.body.innerHTML
  const turndown = new turndownModule.default({ headingStyle: "atx", codeBlockStyle: "fenced", bulletListMarker: "-" })
  return { markdown: turndown.turndown(main).trim(), title: article?.title?.trim() || title }
}

const prettyJson = (text: string): string => {
  try {
    return JSON.stringify(JSON.parse(text), null, 2)
  } catch {
    return text
  }
}

export const convertBody = async (body: Uint8Array, contentType: string, url: URL, raw: boolean): Promise<Converted> => {
  const mime = mimeOf(contentType) || "text/plain"
  if (isImageMime(mime)) return { _tag: "Image", bytes: body }
  if (htmlTypes.test(mime)) {
    const html = decode(body, contentType)
    if (raw) return { _tag: "Text", text: html }
    const { markdown, title } = await htmlToMarkdown(html, url)
    return { _tag: "Text", text: markdown, title }
  }
  if (jsonTypes.test(mime)) return { _tag: "Text", text: raw ? decode(body, contentType) : prettyJson(decode(body, contentType)) }
  if (textTypes.test(mime)) return { _tag: "Text", text: decode(body, contentType) }
  return { _tag: "Refused", reason: `web_fetch does not read ${mime} (${url.href}): it reads HTML, JSON, text and PNG, JPEG, GIF or WebP images.` }
}
