//! Tool groups and tools as the settings screen shows them.

use crate::state::AppState;
use tollgate_engine::executor::{group_views, GroupView};
use tollgate_engine::settings::ChatToolOverrides;

/// Every tool group with its tools, policies and app-wide toggles.
#[tauri::command]
pub fn list_tool_groups(state: tauri::State<'_, AppState>) -> Vec<GroupView> {
    catalog(&state)
}

/// The app-wide view (no chat overrides).
pub fn catalog(state: &AppState) -> Vec<GroupView> {
    group_views(
        &state.registry,
        &state.settings.read(),
        &ChatToolOverrides::default(),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use tollgate_engine::policy::ExecutionPolicy;

    #[tokio::test]
    async fn the_catalog_reflects_builtins_and_settings() {
        let dir = tempfile::tempdir().unwrap();
        let state = AppState::open(dir.path()).await.unwrap();
        state
            .settings
            .write()
            .tool_mut("calculate")
            .execution_policy = Some(ExecutionPolicy::AskAlways);
        let groups = catalog(&state);
        let names: Vec<&str> = groups.iter().map(|g| g.name.as_str()).collect();
        assert_eq!(names, ["vars", "basic", "chat"]);
        assert!(
            groups.iter().all(|g| g.enabled),
            "basic is on by default, so vars is too"
        );
        let calc = groups[1]
            .tools
            .iter()
            .find(|t| t.name == "calculate")
            .unwrap();
        assert_eq!(calc.execution_policy, ExecutionPolicy::AskAlways);
        let json = serde_json::to_value(&groups[1]).unwrap();
        assert_eq!(json["tools"][0]["executionPolicy"], "auto");
        assert_eq!(json["tools"][0]["readOnly"], true);
        assert!(dir.path().join("tollgate.sqlite3").exists());
    }
}
