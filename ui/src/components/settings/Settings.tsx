/**
 * The settings view: a header, the tab bar, and the open tab. Each tab lives in its own module
 * and loads what it shows itself; the app-wide settings come from the app, which applies them.
 */
import { type Key, t } from "../../i18n";
import type { ChatId, ChatRow, SettingsView } from "../../types";
import { GeneralTab } from "./GeneralTab";
import { McpTab } from "./McpTab";
import { PresetsTab } from "./PresetsTab";
import { ProvidersTab } from "./ProvidersTab";
import { RulesTab } from "./RulesTab";
import { ToolsTab } from "./ToolsTab";

export type SettingsTab = "providers" | "presets" | "tools" | "mcp" | "rules" | "general";

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

interface Props extends SharedSettings {
  tab: SettingsTab;
  onTab: (tab: SettingsTab) => void;
  chats: ChatRow[];
  currentChat: ChatId | null;
  onProvidersChanged: () => void;
  /** Presets were added, changed or removed (the New chat menu lists them). */
  onPresetsChanged: () => void;
  onConfirm: Confirm;
  onBack: () => void;
}

const TABS: Array<[SettingsTab, Key]> = [
  ["providers", "settings.providers"],
  ["presets", "settings.presets"],
  ["tools", "settings.tools"],
  ["mcp", "settings.mcp"],
  ["rules", "settings.rules"],
  ["general", "settings.general"],
];

export function SettingsScreen(props: Props) {
  const shared: SharedSettings = {
    settings: props.settings,
    settingsError: props.settingsError,
    onReloadSettings: props.onReloadSettings,
    onSettings: props.onSettings,
  };
  return (
    <section class="settings" aria-label={t("settings.title")}>
      <header class="settings-header">
        <h1>{t("settings.title")}</h1>
        <button type="button" class="btn btn--ghost" onClick={props.onBack}>
          ← {t("settings.back")}
        </button>
      </header>
      <div class="tabs" role="tablist">
        {TABS.map(([id, label]) => (
          <button
            key={id}
            type="button"
            role="tab"
            aria-selected={props.tab === id}
            class={`tab${props.tab === id ? " is-active" : ""}`}
            onClick={() => props.onTab(id)}
          >
            {t(label)}
          </button>
        ))}
      </div>
      <div class="settings-body">{body(props, shared)}</div>
    </section>
  );
}

function body(props: Props, shared: SharedSettings) {
  switch (props.tab) {
    case "providers":
      return <ProvidersTab onChanged={props.onProvidersChanged} onConfirm={props.onConfirm} />;
    case "presets":
      return <PresetsTab onConfirm={props.onConfirm} onChanged={props.onPresetsChanged} />;
    case "tools":
      return <ToolsTab {...shared} />;
    case "mcp":
      return <McpTab onConfirm={props.onConfirm} />;
    case "rules":
      return <RulesTab chats={props.chats} currentChat={props.currentChat} />;
    case "general":
      return <GeneralTab {...shared} />;
  }
}
