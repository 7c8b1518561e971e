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

const messageOfShape = "Use messageOf(error) from src/text/error-text.ts."
const pluralShape = "Use plural(count, noun) from src/text/plural.ts."

const duplicateShapes = [
  // error instanceof Error ? error.message : …, and with error?.message
  {
    selector: "ConditionalExpression[test.operator='instanceof'][test.right.name='Error'][consequent.type='MemberExpression'][consequent.property.name='message']",
    message: messageOfShape
  },
  {
    selector: "ConditionalExpression[test.operator='instanceof'][test.right.name='Error'][consequent.type='ChainExpression'][consequent.expression.property.name='message']",
    message: messageOfShape
  },
  // n === 1 ? "" : "s", n !== 1 ? "s" : "", n > 1 ? "s" : ""
  { selector: "ConditionalExpression[test.operator=/^={2,3}$/][test.right.value=1][consequent.value=''][alternate.value='s']", message: pluralShape },
  { selector: "ConditionalExpression[test.operator=/^(!={1,2}|>)$/][test.right.value=1][consequent.value='s'][alternate.value='']", message: pluralShape },
  // n === 1 ? "1 tool" : `${n} tools`
  { selector: "ConditionalExpression[test.operator=/^={2,3}$/][test.right.value=1][consequent.value=/^1 /][alternate.type='TemplateLiteral']", message: pluralShape },
  // (error as ErrnoException).code ?? String(error), or || String(error)
  {
    selector: "LogicalExpression[operator=/^(\\?\\?|\\|\\|)$/][left.type='MemberExpression'][left.property.name='code'][right.type='CallExpression'][right.callee.name='String']",
    message: "Use codeOf(error) from src/text/error-text.ts."
  }
]

/** In the product's code only: tests and plugin examples name tools as a model or a plugin would. */
const toolNameMessage = "Compare with the tool's name constant or spec (src/tools/*-specs.ts, tool-names.ts), not a literal."
const toolNameValue = `/^(${toolNames.join("|")})$/`
/** What holds a tool's name: `name`, `toolName` or `tool`, alone or as a property (`call.name`, `r.tool`). */
const holdsToolName = (side) => `${side}.name=/^(name|toolName|tool)$/`
const toolNameLiterals = [
  // call.name === "bash", name === "bash", and the other way round
  ...["left", "right"].flatMap((side) => {
    const literal = side === "left" ? "right" : "left"
    return [
      `BinaryExpression[operator=/^[!=]==?$/][${literal}.type='Literal'][${literal}.value=${toolNameValue}][${side}.type='MemberExpression'][${side}.property.name=/^(name|toolName|tool)$/]`,
      `BinaryExpression[operator=/^[!=]==?$/][${literal}.type='Literal'][${literal}.value=${toolNameValue}][${side}.type='Identifier'][${holdsToolName(side)}]`
    ]
  }),
  // switch (call.name) { case "bash": }
  `SwitchStatement[discriminant.property.name=/^(name|toolName|tool)$/] > SwitchCase > Literal.test[value=${toolNameValue}]`,
  `SwitchStatement[discriminant.name=/^(name|toolName|tool)$/] > SwitchCase > Literal.test[value=${toolNameValue}]`,
  // ["bash", "edit"].includes(call.name)
  `CallExpression[callee.property.name='includes'][arguments.0.property.name=/^(name|toolName|tool)$/] > MemberExpression.callee > ArrayExpression.object > Literal[value=${toolNameValue}]`,
  `CallExpression[callee.property.name='includes'][arguments.0.name=/^(name|toolName|tool)$/] > MemberExpression.callee > ArrayExpression.object > Literal[value=${toolNameValue}]`
].map((selector) => ({ selector, message: toolNameMessage }))

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
      "no-restricted-syntax": ["error", ...duplicateShapes, ...localHelpers, ...toolNameLiterals]
    }
  },
  {
    // The helpers' own homes.
    files: ["src/text/**", "src/files/within.ts"],
    rules: { "no-restricted-syntax": ["error", ...toolNameLiterals] }
  },
  {
    files: ["**/*.js", "**/*.mjs"],
    languageOptions: {
      globals: { process: "readonly", console: "readonly", setTimeout: "readonly", setInterval: "readonly", clearTimeout: "readonly", Buffer: "readonly" }
    }
  }
)
