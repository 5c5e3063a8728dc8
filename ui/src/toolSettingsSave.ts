/**
 * Saving the tool settings: one save at a time, each change applied to the newest settings
 * the app saved (SECURITY.md, "Claims stay claims"). The backend refuses a save made from an
 * older copy than the one in force (`settingsChanged`: a review was confirmed meanwhile,
 * another tab saved); the change is then applied again to the settings read afresh, so a tab
 * that loaded the settings before a confirmation never writes it away with its stale copy.
 */
import * as api from "./api";
import { isCommandError } from "./format";
import type { ToolSettings } from "./types";

/** The settings as last saved here, newer than any copy a tab holds. */
let newest: ToolSettings | null = null;
/** The save under way, so that saves follow one another. */
let queue: Promise<unknown> = Promise.resolve();

function refusedAsStale(e: unknown): boolean {
  return isCommandError(e) && e.invalid?.type === "settingsChanged";
}

/** Applies `change` to the newest tool settings (`shown` when none were saved here yet) and
 * saves the result; answers the settings as saved. */
export function saveToolSettings(shown: ToolSettings, change: (tools: ToolSettings) => ToolSettings): Promise<ToolSettings> {
  const run = async (): Promise<ToolSettings> => {
    const base = newest !== null && newest.revision >= shown.revision ? newest : shown;
    try {
      newest = await api.setToolSettings(change(base));
    } catch (e) {
      if (!refusedAsStale(e)) throw e;
      const fresh = (await api.getSettings()).tools;
      newest = await api.setToolSettings(change(fresh));
    }
    return newest;
  };
  const saved = queue.then(run, run);
  queue = saved.catch(() => undefined);
  return saved;
}

/** Forgets the newest settings (tests start each from nothing). */
export function forgetSavedToolSettings(): void {
  newest = null;
  queue = Promise.resolve();
}
