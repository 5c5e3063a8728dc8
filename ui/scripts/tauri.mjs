// The Tauri CLI for this repository, run from ui/ (`npm run tauri -- <command>`, or
// `npm run tauri dev`): it points the CLI at ../src-tauri, and makes `dev` build without the
// app's default `custom-protocol` feature, so the window loads the Vite dev server (live reload)
// instead of the UI embedded in the binary. Release builds (`tauri build`) keep the embedded UI.
import { run } from "@tauri-apps/cli";
import { fileURLToPath } from "node:url";
import path from "node:path";

const ui = path.dirname(path.dirname(fileURLToPath(import.meta.url)));
process.env.TAURI_APP_PATH ??= path.join(ui, "..", "src-tauri");
process.env.TAURI_FRONTEND_PATH ??= ui;

const args = process.argv.slice(2);
if (args[0] === "dev" && !args.includes("--")) args.push("--", "--no-default-features");

run(args, "tauri").catch((error) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
