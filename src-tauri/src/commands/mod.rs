//! Tauri commands, one module per area. Each returns `Result<T, String>` so the UI receives a
//! readable message on failure; all logic lives in the engine.

pub mod app;
pub mod chats;
pub mod decisions;
pub mod export;
pub mod mcp;
pub mod providers;
pub mod rules;
pub mod settings;
pub mod tools;
pub mod turns;

/// Every command the UI may call.
pub fn handler<R: tauri::Runtime>() -> impl Fn(tauri::ipc::Invoke<R>) -> bool + Send + Sync + 'static
{
    tauri::generate_handler![
        app::ui_ready,
        chats::list_chats,
        chats::create_chat,
        chats::rename_chat,
        chats::delete_chat,
        chats::search_chats,
        chats::set_chat_workspace,
        chats::set_chat_model,
        chats::chat_history,
        turns::send_message,
        turns::retry_turn,
        turns::stop_turn,
        decisions::decide,
        decisions::answer_question,
        decisions::pending_approvals,
        decisions::waiting_counts,
        settings::get_settings,
        settings::set_app_settings,
        settings::set_tool_settings,
        tools::list_tool_groups,
        tools::chat_tool_groups,
        tools::set_chat_group_enabled,
        tools::set_chat_tool_enabled,
        providers::list_providers,
        providers::add_provider,
        providers::save_provider_key,
        providers::remove_provider,
        providers::list_models,
        rules::list_rules,
        rules::revoke_rule,
        rules::list_records,
        rules::revoke_record,
        export::export_chat,
        mcp::list_mcp_servers,
        mcp::save_mcp_server,
        mcp::import_mcp_servers,
        mcp::remove_mcp_server,
        mcp::restart_mcp_server,
    ]
}
