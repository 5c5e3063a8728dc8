/** Test support: the tool settings and tool views the backend sends, in their real shapes. */
import type { ToolEffects, ToolSettings } from "../types";
import { commandError } from "./backend";

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
    revision: 0,
  };
}

/**
 * The tool settings as the backend keeps them: each save answers the settings at the next
 * revision, and a save made from an older copy is refused with `settingsChanged`, as
 * `Preferences::set_tool_settings` refuses it.
 */
export class ToolSettingsBackend {
  stored: ToolSettings;
  constructor(initial: ToolSettings = toolSettings()) {
    this.stored = initial;
  }
  readonly save = (s: ToolSettings): Promise<ToolSettings> => {
    if (s.revision !== this.stored.revision) {
      return Promise.reject(commandError("invalid", "the tool settings changed elsewhere", { invalid: { type: "settingsChanged" } }));
    }
    this.stored = { ...s, revision: s.revision + 1 };
    return Promise.resolve(this.stored);
  };
  /** A change saved elsewhere meanwhile (a review confirmed in a chat). */
  changeElsewhere(change: (tools: ToolSettings) => ToolSettings): void {
    this.stored = { ...change(this.stored), revision: this.stored.revision + 1 };
  }
}
