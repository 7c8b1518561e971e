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
