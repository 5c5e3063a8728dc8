import { defineConfig } from "vitest/config";

// Tauri serves the built files from ui/dist; `tauri dev` expects the dev server on a fixed port.
export default defineConfig({
  clearScreen: false,
  esbuild: { jsx: "automatic", jsxImportSource: "preact" },
  server: {
    port: 1420,
    strictPort: true,
  },
  envPrefix: ["VITE_", "TAURI_ENV_"],
  build: {
    outDir: "dist",
    emptyOutDir: true,
    // WebView2 (Chromium) on Windows, WKWebView / WebKitGTK elsewhere.
    target: ["es2021", "chrome105", "safari13"],
    // Keep every asset a separate file so the strict CSP (default-src 'self') holds.
    assetsInlineLimit: 0,
    sourcemap: false,
  },
  test: {
    environment: "jsdom",
    include: ["src/**/*.test.ts", "src/**/*.test.tsx"],
  },
});
