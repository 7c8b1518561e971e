// ~/.crystal/plugins/house-rules/index.mjs: house rules for the model, `npm ci` instead of a bare
// `npm install`, and {{git_branch}} for prompt files (~/.crystal/prompts/work.md, attachments).
import { readFileSync } from "node:fs"
import { join } from "node:path"

let workspace = process.cwd()

export default {
  name: "house-rules",
  hooks: {
    onSessionStarted: (session) => {
      workspace = session.workspace
    },
    // Appended to the instructions of Work and Plan (not to the approval reviewer's Review text).
    onPrompt: ({ mode }) => (mode === "review" ? undefined : "House rules: run `npm test` before you call a change done."),
    // The rewritten call is classified and approved again before it runs.
    onToolCall: (call) => {
      const command = call.name === "bash" ? call.arguments?.command : undefined
      return command === "npm install" ? { arguments: { ...call.arguments, command: "npm ci" } } : undefined
    }
  },
  placeholders: {
    // undefined leaves {{git_branch}} as written (and the host notes why).
    git_branch: () => {
      try {
        const head = readFileSync(join(workspace, ".git", "HEAD"), "utf8").trim()
        return head.startsWith("ref: refs/heads/") ? head.slice("ref: refs/heads/".length) : undefined
      } catch {
        return undefined
      }
    }
  }
}
