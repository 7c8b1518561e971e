/**
 * Opens the connection to the provider while the rest of start-up runs: Bun's first fetch pays
 * ~6 ms to set up its HTTP client. Elsewhere (Node, Deno) there is no such call and this does nothing.
 */
export const preconnect = (baseURL: string): void => {
  const withPreconnect = fetch as typeof fetch & { readonly preconnect?: (url: string) => void }
  if (typeof withPreconnect.preconnect !== "function") return
  try {
    withPreconnect.preconnect(new URL(baseURL).origin)
  } catch {
    // An unparsable base URL fails properly, with a message, when the request is made.
  }
}
