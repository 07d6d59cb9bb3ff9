import { RuleTester, type Linter, type Rule } from "eslint";
import tseslint from "typescript-eslint";
import { describe, it } from "vitest";
// @ts-expect-error eslint.config.js is plain JavaScript, without types
import config from "../eslint.config.js";

/** The project's own ESLint rules (eslint.config.js), as ESLint runs them. */
const local = (config as Linter.Config[]).find((entry) => entry.plugins?.local)!.plugins!.local!.rules!;

// The scripts the public pages had as strings before they were functions.
const OLD_LARGEST_PAINT_FIRST =
  "`(function(){var d=document,h=d.documentElement,s=${JSON.stringify(selector)},done=false,watching=false;` +\n" +
  '  `d.addEventListener("load",function(e){if(mine(e))loaded()},true);`';
const OLD_ISLAND_LOADER =
  '`if(document.readyState==="complete")painted();else addEventListener("load",painted,{once:true})})()`';
const OLD_BEACON =
  "const BEACON = `(function(){var s=function(){navigator.sendBeacon(${JSON.stringify(path)}+encodeURIComponent(location.pathname))}})()`;";

RuleTester.describe = describe;
RuleTester.it = it;
new RuleTester({ languageOptions: { parser: tseslint.parser } }).run(
  "no-browser-code-in-strings",
  local["no-browser-code-in-strings"] as Rule.RuleModule,
  {
    valid: [
      "const text = `(${publicPageScript})(${JSON.stringify(options)})`;",
      'window.addEventListener("load", () => start());',
      'const help = "Add an event listener with the island";',
      "const f = function () { return 1; };",
    ],
    invalid: [
      { code: OLD_LARGEST_PAINT_FIRST, errors: 2 },
      { code: OLD_ISLAND_LOADER, errors: 1 },
      { code: OLD_BEACON, errors: 1 },
      { code: "const s = '( function ( ) { run() })()';", errors: 1 },
      { code: 'const s = "el.addEventListener (\\"click\\", f)";', errors: 1 },
    ].map((test) => ({ ...test, errors: Array.from({ length: test.errors }, () => ({ messageId: "browserCode" })) })),
  },
);

new RuleTester({ languageOptions: { parser: tseslint.parser } }).run(
  "no-issue-references",
  local["no-issue-references"] as Rule.RuleModule,
  {
    valid: [
      "// The photo stays on the phone: the site serves 2,400 px at most.",
      'it("keeps the issues of a magazine apart", () => {});',
      'const mail = "Issue 4 of our newsletter";',
    ],
    invalid: [
      "// Issue 21 §3: the no-JS form.",
      "/** Fixed in issue #12. */ const a = 1;",
      'it("refuses a second photo part (issue 36)", () => {});',
      'describe.each([1])("issues 8 and 9", () => {});',
      "test(`as issue 19 wanted`, () => {});",
    ].map((code) => ({ code, errors: [{ messageId: "issueReference" }] })),
  },
);
