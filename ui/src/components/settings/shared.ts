/** What the settings view hands its tabs (kept apart so the tabs never import the view that imports them). */
import type { SettingsView } from "../../types";

/** Asks before a destructive action; the dialog shows the action's error if it fails. */
export type Confirm = (message: string, action: () => Promise<void>) => void;

/** The app-wide settings as the app loaded them, for the tabs that edit them. */
export interface SharedSettings {
  /** Null until loaded (or if they could not be read). */
  settings: SettingsView | null;
  /** Why they could not be read: shown instead of a spinner that never ends. */
  settingsError: string | null;
  /** Reads them again (the Retry of that error). */
  onReloadSettings: () => void;
  /** Applies changed settings at once (they are saved by the tab). */
  onSettings: (s: SettingsView) => void;
}
