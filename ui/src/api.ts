/**
 * The one module that talks to the Tauri backend. Every `invoke` lives here.
 */
import { invoke } from "@tauri-apps/api/core";
import type { ToolGroupInfo } from "./types";

declare global {
  interface Window {
    __TAURI_INTERNALS__?: { invoke?: unknown };
  }
}

/** Thrown when the page runs outside the Tollgate app (no Tauri runtime to call). */
export class BackendUnavailableError extends Error {
  constructor() {
    super("the Tauri runtime is not present (is this page open outside the Tollgate app?)");
    this.name = "BackendUnavailableError";
  }
}

async function call<T>(command: string, args?: Record<string, unknown>): Promise<T> {
  if (typeof window === "undefined" || typeof window.__TAURI_INTERNALS__?.invoke !== "function") {
    throw new BackendUnavailableError();
  }
  return invoke<T>(command, args);
}

/** All tool groups in the registry with their tools and default policies. */
export function listToolGroups(): Promise<ToolGroupInfo[]> {
  return call<ToolGroupInfo[]>("list_tool_groups");
}
