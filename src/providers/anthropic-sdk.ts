/**
 * The part of the Anthropic SDK the adapter uses: the base client (it posts to /v1/messages
 * itself) and the error classes. Importing them from here lets the bundler leave out every
 * resource module of the full `Anthropic` client — half the SDK — which would otherwise sit
 * unused in the binary and be loaded at every start.
 */
export { BaseAnthropic } from "@anthropic-ai/sdk/client"
export { APIConnectionError, APIConnectionTimeoutError, APIError, APIUserAbortError } from "@anthropic-ai/sdk/core/error"
