import js from "@eslint/js";
import reactHooks from "eslint-plugin-react-hooks";
import globals from "globals";
import tseslint from "typescript-eslint";

/** Browser code written inside a string, which neither tsc nor ESLint can read. */
const BROWSER_CODE = /\(\s*function\s*\(\s*\)\s*\{|addEventListener\s*\(/;

/**
 * Comments say what the code does and why; a newcomer has no issue tracker to
 * read, so a comment that cites an issue number explains nothing. The reasons
 * behind the code live in docs/decisions/.
 */
const local = {
  rules: {
    // An inline script is a typed function sent as its source text (app/islands/page-script.ts), not a string.
    "no-browser-code-in-strings": {
      meta: {
        type: "problem",
        docs: { description: "Disallow browser code inside string and template literals" },
        schema: [],
        messages: {
          browserCode:
            "Write browser code as a typed function and inline its source, `(${fn})(${JSON.stringify(options)})`, as app/islands/page-script.ts does",
        },
      },
      create(context) {
        const check = (node, text) => {
          if (BROWSER_CODE.test(text)) context.report({ node, messageId: "browserCode" });
        };
        return {
          Literal: (node) => typeof node.value === "string" && check(node, node.value),
          TemplateLiteral: (node) => check(node, node.quasis.map((quasi) => quasi.value.raw).join("")),
        };
      },
    },
    "no-issue-references": {
      meta: {
        type: "suggestion",
        docs: { description: "Disallow comments and test titles that cite an issue number" },
        schema: [],
        messages: {
          issueReference:
            "Say what the code does and why instead of citing an issue number (docs/decisions/ holds the reasons)",
        },
      },
      create(context) {
        const cites = (text) => /\bissues?\s*#?\d+/i.test(text);
        const TEST_CALLS = new Set(["describe", "it", "test"]);
        return {
          Program() {
            for (const comment of context.sourceCode.getAllComments()) {
              if (cites(comment.value)) context.report({ loc: comment.loc, messageId: "issueReference" });
            }
          },
          // A test's title too: it is what a failing run prints.
          CallExpression(node) {
            let callee = node.callee; // it, it.skip, describe.each([…])
            while (callee.type === "MemberExpression" || callee.type === "CallExpression")
              callee = callee.type === "MemberExpression" ? callee.object : callee.callee;
            const [title] = node.arguments;
            if (callee.type !== "Identifier" || !TEST_CALLS.has(callee.name) || !title) return;
            const text =
              title.type === "Literal"
                ? String(title.value)
                : title.type === "TemplateLiteral"
                  ? title.quasis.map((q) => q.value.raw).join("")
                  : "";
            if (cites(text)) context.report({ node: title, messageId: "issueReference" });
          },
        };
      },
    },
  },
};

export default tseslint.config(
  {
    ignores: [
      "build/",
      ".react-router/",
      "node_modules/",
      "data/",
      "reports/",
      "test-results/",
      "playwright-report/",
      "releases/",
      "current/",
    ],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.{ts,tsx,mjs}"],
    languageOptions: { globals: { ...globals.browser, ...globals.node } },
    plugins: { "react-hooks": reactHooks },
    rules: {
      ...reactHooks.configs.recommended.rules,
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "@typescript-eslint/consistent-type-imports": ["error", { fixStyle: "inline-type-imports" }],
      "no-restricted-imports": [
        "error",
        {
          paths: [
            { name: "zod", message: "Import z from ~/lib/zod (configured to work under the CSP)." },
            // The barrels open every function and every locale (over 500 files) in each script and server that starts.
            { name: "date-fns", message: "Import the function from its own path, e.g. date-fns/format." },
            { name: "date-fns/locale", message: "Import the locale from its own path, e.g. date-fns/locale/en-US." },
          ],
        },
      ],
      "no-restricted-syntax": [
        "error",
        { selector: "CallExpression[callee.property.name='only']", message: "No focused tests (.only)." },
      ],
    },
  },
  { files: ["app/lib/zod.ts"], rules: { "no-restricted-imports": "off" } },
  // dependency-cruiser reads its configuration as CommonJS.
  { files: ["**/*.cjs"], languageOptions: { sourceType: "commonjs", globals: globals.node } },
  {
    files: ["app/**/*.{js,ts,tsx,mjs}", "server/**/*.{js,ts,tsx,mjs}"],
    plugins: { local },
    rules: { "local/no-browser-code-in-strings": "error" },
  },
  { files: ["**/*.{js,ts,tsx,mjs,cjs}"], plugins: { local }, rules: { "local/no-issue-references": "error" } },
  {
    // Playwright fixtures use `use()` and empty patterns by design; they are not React hooks.
    files: ["tests/e2e/**/*.ts", "tests/screens/**/*.ts"],
    rules: { "react-hooks/rules-of-hooks": "off", "no-empty-pattern": "off" },
  },
);
