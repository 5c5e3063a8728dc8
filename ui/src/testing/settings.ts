/** Test support: the tool settings and tool views the backend sends, in their real shapes. */
import type { ToolEffects, ToolSettings } from "../types";

/** A tool that changes, runs and sends nothing (a calculator). */
export const NO_EFFECTS: ToolEffects = { writes: false, executes: false, sendsOut: false, irreversible: false, readsPrivate: false };

/** App-wide tool settings as a fresh install has them (the gate on, nothing trusted). */
export function toolSettings(): ToolSettings {
  return {
    defaultOutputLimit: 8000,
    groups: {},
    tools: {},
    varMaxCount: 100,
    varMaxBytes: 1_000_000,
    guard: { enabled: true, trusted: [], untrustedFolders: [] },
  };
}
