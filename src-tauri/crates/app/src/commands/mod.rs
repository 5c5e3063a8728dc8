//! Tauri commands, one module per area: each is one call into the engine's service, and a
//! failure reaches the UI as a `CommandError` (`{ kind, message }`, the kind an enum the UI
//! switches on). [`commands!`] lists every command once: it builds the handler and the list of
//! names that `tests/bindings.rs` checks against the generated `ui/src/commands.ts`, so a renamed
//! or retyped command fails the UI's type check.

pub mod app;
pub mod chats;
pub mod decisions;
pub mod guard;
pub mod mcp;
pub mod presets;
pub mod providers;
pub mod rules;
pub mod settings;
pub mod tools;
pub mod turns;
pub mod views;

/// Declares the command list once: the invoke handler and [`NAMES`].
macro_rules! commands {
    ($($module:ident :: $name:ident),* $(,)?) => {
        /// Every command the UI may call.
        pub fn handler<R: tauri::Runtime>(
        ) -> impl Fn(tauri::ipc::Invoke<R>) -> bool + Send + Sync + 'static {
            tauri::generate_handler![$($module::$name),*]
        }

        /// The names of every command, as the UI calls them, with the module that defines each.
        pub const NAMES: &[(&str, &str)] = &[$((stringify!($module), stringify!($name))),*];
    };
}

commands![
    app::ui_ready,
    app::log_folder,
    app::open_log_folder,
    chats::list_chats,
    chats::get_chat,
    chats::create_chat,
    chats::rename_chat,
    chats::delete_chat,
    chats::stop_call,
    chats::search_chats,
    chats::set_chat_workspace,
    chats::set_chat_model,
    chats::chat_history,
    chats::chat_revision,
    chats::set_chat_prompt,
    chats::save_chat_export,
    chats::import_chats,
    turns::send_message,
    turns::retry_turn,
    turns::edit_message,
    turns::regenerate_answer,
    turns::rerun_unsandboxed,
    turns::show_branch,
    turns::stop_turn,
    turns::stop_task,
    decisions::answer_approval,
    decisions::answer_question,
    decisions::answer_elicitation,
    decisions::pending_approvals,
    decisions::waiting_counts,
    settings::get_settings,
    settings::set_app_settings,
    settings::set_tool_settings,
    tools::list_tool_groups,
    tools::chat_tool_groups,
    tools::set_chat_group_enabled,
    tools::set_chat_tool_enabled,
    tools::set_chat_sandbox,
    tools::sandbox_support,
    tools::sandbox_hidden_paths,
    presets::list_presets,
    presets::save_preset,
    presets::delete_preset,
    presets::create_chat_from_preset,
    providers::list_providers,
    providers::add_provider,
    providers::update_provider,
    providers::detect_local_servers,
    providers::save_provider_key,
    providers::remove_provider,
    providers::list_models,
    rules::list_rules,
    rules::revoke_rule,
    rules::list_records,
    rules::revoke_record,
    guard::chat_exposure,
    guard::set_ways_out_off,
    guard::endorse_source,
    guard::unendorse_source,
    guard::autonomy,
    guard::written_files,
    guard::trust_written_file,
    guard::rule_coverage,
    mcp::list_mcp_servers,
    mcp::save_mcp_server,
    mcp::import_mcp_servers,
    mcp::remove_mcp_server,
    mcp::restart_mcp_server,
    mcp::accept_mcp_tool_change,
    mcp::mcp_server_review,
    mcp::confirm_mcp_server,
    mcp::sign_in_mcp_server,
    mcp::cancel_mcp_sign_in,
    mcp::sign_out_mcp_server,
    mcp::list_mcp_resources,
    mcp::list_mcp_prompts,
    mcp::read_mcp_resource,
    mcp::get_mcp_prompt,
    views::open_mcp_view,
    views::mcp_view_outcome,
    views::resume_mcp_views,
    views::mcp_view_call_tool,
    views::mcp_view_read_resource,
];
