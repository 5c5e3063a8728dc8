// ESLint for the UI (flat config): the recommended JavaScript and type-aware TypeScript rules;
// formatting is Prettier's job (eslint-config-prettier turns off the rules that would disagree).
import js from "@eslint/js";
import prettier from "eslint-config-prettier";
import globals from "globals";
import tseslint from "typescript-eslint";

export default tseslint.config(
  // bindings.ts, generated/ and commands.ts are written by `cargo test --workspace --test bindings`.
  { ignores: ["dist/", "node_modules/", "src/bindings.ts", "src/generated/", "src/commands.ts"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    files: ["**/*.{ts,tsx}"],
    languageOptions: {
      globals: { ...globals.browser },
    },
    rules: {
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      eqeqeq: ["error", "always", { null: "ignore" }],
      "no-console": ["error", { allow: ["warn", "error"] }],
    },
  },
  {
    files: ["scripts/**/*.mjs", "*.config.{js,ts}"],
    languageOptions: { globals: { ...globals.node } },
  },
  prettier,
);
