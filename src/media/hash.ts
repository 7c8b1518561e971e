/** Content addresses of media files. Its own module: node:crypto loads only when an image is handled. */
import { createHash } from "node:crypto"

export const sha256Of = (bytes: Uint8Array): string => createHash("sha256").update(bytes).digest("hex")
