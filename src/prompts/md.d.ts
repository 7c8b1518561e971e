/** The built-in prompt texts are Markdown files embedded at build time (Bun's text loader; a small vitest plugin in tests). */
declare module "*.md" {
  const text: string
  export default text
}
