import { defineConfig, type Plugin } from "vitest/config"

/** The built-in prompts are Markdown imported as text (Bun's text loader in the binary). */
const markdownAsText: Plugin = {
  name: "crystal-markdown-as-text",
  enforce: "pre",
  transform: (code, id) => (id.endsWith(".md") ? { code: `export default ${JSON.stringify(code)}`, map: null } : undefined)
}

export default defineConfig({
  plugins: [markdownAsText],
  test: {
    // Vitest's default in a run is one worker less than the cores: one on a 2-core CI machine, which
    // left a core idle while a test waited on a process or a server. Two keep both busy.
    maxWorkers: 2,
    projects: [
      {
        plugins: [markdownAsText],
        test: {
          name: "unit",
          include: ["test/unit/**/*.test.ts"],
          testTimeout: 20_000
        }
      },
      {
        test: {
          name: "e2e",
          include: ["test/e2e/**/*.test.ts"],
          testTimeout: 60_000,
          hookTimeout: 60_000
        }
      }
    ]
  }
})
