// ESLint (flat config): the recommended sets, plus the rules that keep issue 24's duplicates from
// coming back (one messageOf, one byte formatter, one clip/oneLine/plural, one isWithin, tool
// names from their specs) and functions short. Untyped rules only: type-aware linting took
// several times as long for nothing these rules need (docs/architecture.md, "Lint").
import js from "@eslint/js"
import tseslint from "typescript-eslint"

/** Helpers with one home each (src/text, src/files/within.ts): a local copy under any of these names is refused. */
const sharedHelpers = [
  "messageOf",
  "errorMessage",
  "describeError",
  "codeOf",
  "formatBytes",
  "formatSize",
  "formatCapacity",
  "sizeText",
  "humanSize",
  "clip",
  "oneLine",
  "plural",
  "isWithin",
  "isInside",
  "isUnder"
]
const sharedHelperName = `/^(${sharedHelpers.join("|")})$/`

/** The names of the tools this build provides: compared with a literal, a name is written twice. */
const toolNames = [
  "read", "list", "tree", "glob", "grep", "search", "edit", "write", "view_image", "describe_image",
  "todowrite", "todoread", "question", "skill", "bash", "bash_start", "bash_status", "bash_logs", "bash_stop"
]

const duplicateShapes = [
  {
    selector:
      "ConditionalExpression[test.type='BinaryExpression'][test.operator='instanceof'][test.right.name='Error'][consequent.type='MemberExpression'][consequent.property.name='message']",
    message: "Use messageOf(error) from src/text/error-text.ts."
  },
  {
    selector: "ConditionalExpression[test.operator='==='][test.right.value=1][consequent.value=''][alternate.value='s']",
    message: "Use plural(count, noun) from src/text/plural.ts."
  },
]

/** In the product's code only: tests and plugin examples name tools as a model or a plugin would. */
const toolNameLiteral = {
  selector: `BinaryExpression[operator=/^[!=]==$/][right.type='Literal'][right.value=/^(${toolNames.join("|")})$/][left.property.name=/^(name|toolName)$/]`,
  message: "Compare with the tool's name constant or spec (src/tools/*-specs.ts, tool-names.ts), not a literal."
}

const localHelpers = [
  { selector: `VariableDeclarator[id.name=${sharedHelperName}]`, message: "This helper has one home (src/text/, src/files/within.ts): import it." },
  { selector: `FunctionDeclaration[id.name=${sharedHelperName}]`, message: "This helper has one home (src/text/, src/files/within.ts): import it." }
]

export default tseslint.config(
  { ignores: ["dist/**", "node_modules/**", "coverage/**", ".exp/**"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    rules: {
      // Terminal escapes and control characters are what much of this code reads and neutralises.
      "no-control-regex": "off",
      // Effect.fn and Effect.gen take generators, which need not yield.
      "require-yield": "off",
      // tsc's noUnusedLocals and noUnusedParameters check this; a `_name` left out of a rest is on purpose.
      "@typescript-eslint/no-unused-vars": "off",
      "no-restricted-syntax": ["error", ...duplicateShapes, ...localHelpers]
    }
  },
  {
    files: ["src/**/*.ts", "layers/**/*.ts"],
    rules: {
      "max-lines-per-function": ["error", { max: 120 }],
      "no-restricted-syntax": ["error", ...duplicateShapes, ...localHelpers, toolNameLiteral]
    }
  },
  {
    // The helpers' own homes.
    files: ["src/text/**", "src/files/within.ts"],
    rules: { "no-restricted-syntax": ["error", toolNameLiteral] }
  },
  {
    files: ["**/*.js", "**/*.mjs"],
    languageOptions: {
      globals: { process: "readonly", console: "readonly", setTimeout: "readonly", setInterval: "readonly", clearTimeout: "readonly", Buffer: "readonly" }
    }
  }
)
