// ESLint flat config: the recommended JavaScript and TypeScript rules, over src/, scripts/ and host-test/.
import js from "@eslint/js";
import tseslint from "typescript-eslint";

export default tseslint.config(
  {
    ignores: ["node_modules/", "out/", "dist/", "*.vsix",
      // what host-test's npm run setup, npm run build and npm test install and generate
      "host-test/lib/", "host-test/src-gen/", "host-test/out/", "host-test/.plugins/", "host-test/*esbuild*.mjs",
      "host-test/*webpack*.js"],
  },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["src/**/*.ts"],
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_" }],
      eqeqeq: ["error", "always"],
      curly: ["error", "multi-line"],
      "no-console": "error",
    },
  },
  {
    files: ["scripts/**/*.mjs", "eslint.config.mjs"],
    languageOptions: { globals: { process: "readonly", console: "readonly", URL: "readonly" } },
  },
  {
    files: ["host-test/*.mjs"],
    languageOptions: {
      globals: { process: "readonly", console: "readonly", URL: "readonly", fetch: "readonly", setTimeout: "readonly" },
    },
  },
);
