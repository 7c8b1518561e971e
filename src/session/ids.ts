const pad = (value: number, width = 2): string => String(value).padStart(width, "0")

const randomHex = (bytes: number): string =>
  Array.from(globalThis.crypto.getRandomValues(new Uint8Array(bytes)), (byte) => byte.toString(16).padStart(2, "0")).join("")

/** Sortable by creation time, readable, short: 20261130-001547-a1b2c3 (UTC). */
export const newSessionId = (now: Date = new Date()): string =>
  `${now.getUTCFullYear()}${pad(now.getUTCMonth() + 1)}${pad(now.getUTCDate())}-` +
  `${pad(now.getUTCHours())}${pad(now.getUTCMinutes())}${pad(now.getUTCSeconds())}-${randomHex(3)}`

/** Ids of transcript items: unique within a session, ordered by creation. */
export const newItemId = (): string => `${Date.now().toString(36)}${randomHex(4)}`

export const isSessionId = (value: string): boolean => /^\d{8}-\d{6}-[0-9a-f]{6}$/.test(value)
