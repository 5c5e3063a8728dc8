/**
 * The settings view: a header, the tab bar, and the open tab. Each tab lives in its own module
 * and loads what it shows itself; the app-wide settings come from the app, which applies them.
 */
import { type Key, t } from "../../i18n";
import type { ChatId, ChatRow } from "../../types";
import { GateTab } from "./GateTab";
import { GeneralTab } from "./GeneralTab";
import { McpTab } from "./McpTab";
import { PresetsTab } from "./PresetsTab";
import { ProvidersTab } from "./ProvidersTab";
import { RulesTab } from "./RulesTab";
import type { Confirm, SharedSettings } from "./shared";
import { ToolsTab } from "./ToolsTab";

export type SettingsTab = "providers" | "presets" | "tools" | "mcp" | "rules" | "gate" | "general";

interface Props extends SharedSettings {
  tab: SettingsTab;
  onTab: (tab: SettingsTab) => void;
  chats: ChatRow[];
  currentChat: ChatId | null;
  onConfirm: Confirm;
  onBack: () => void;
}

const TABS: Array<[SettingsTab, Key]> = [
  ["providers", "settings.providers"],
  ["presets", "settings.presets"],
  ["tools", "settings.tools"],
  ["mcp", "settings.mcp"],
  ["rules", "settings.rules"],
  ["gate", "settings.gate"],
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
      return <ProvidersTab onConfirm={props.onConfirm} />;
    case "presets":
      return <PresetsTab onConfirm={props.onConfirm} />;
    case "tools":
      return <ToolsTab {...shared} />;
    case "mcp":
      return <McpTab onConfirm={props.onConfirm} />;
    case "rules":
      return <RulesTab chats={props.chats} currentChat={props.currentChat} />;
    case "gate":
      return <GateTab {...shared} onConfirm={props.onConfirm} />;
    case "general":
      return <GeneralTab {...shared} />;
  }
}
