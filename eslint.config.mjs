import tseslint from "typescript-eslint";

export default tseslint.config({ ignores: ["**/node_modules/**", "**/dist/**", "**/.sfbench/**", "**/.next/**"] }, ...tseslint.configs.recommended, {
  rules: {
    "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
  },
});
