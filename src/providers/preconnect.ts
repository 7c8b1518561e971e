/**
 * Starts DNS, TCP and TLS to the provider while the last ~10 ms of start-up run (Bun only; on
 * Node and Deno this does nothing). Against a local server it gains nothing measurable; against a
 * remote HTTPS API it takes that much off the handshake the first request would wait for.
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
