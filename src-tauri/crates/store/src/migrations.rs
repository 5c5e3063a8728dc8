//! Versioned schema migrations (rusqlite_migration, tracked in `user_version`).
//!
//! Migrations are append-only: a released migration is never edited, a change is a new entry.

use super::StoreResult;
use rusqlite::Connection;
use rusqlite_migration::{Migrations, M};

const V1: &str = r#"
CREATE TABLE providers (
    id            INTEGER PRIMARY KEY,
    kind          TEXT NOT NULL,
    name          TEXT NOT NULL,
    base_url      TEXT NOT NULL DEFAULT '',
    default_model TEXT NOT NULL DEFAULT '',
    has_key       INTEGER NOT NULL DEFAULT 0,
    created_at    INTEGER NOT NULL
);

CREATE TABLE chats (
    id             INTEGER PRIMARY KEY,
    title          TEXT NOT NULL DEFAULT '',
    provider_id    INTEGER REFERENCES providers(id) ON DELETE SET NULL,
    model          TEXT NOT NULL DEFAULT '',
    system_prompt  TEXT NOT NULL DEFAULT '',
    workspace      TEXT,
    tool_overrides TEXT NOT NULL DEFAULT '{}',
    created_at     INTEGER NOT NULL,
    updated_at     INTEGER NOT NULL
);
CREATE INDEX chats_updated ON chats(updated_at DESC);

CREATE TABLE messages (
    id         INTEGER PRIMARY KEY,
    chat_id    INTEGER NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    role       TEXT NOT NULL CHECK (role IN ('system', 'user', 'assistant', 'tool')),
    content    TEXT NOT NULL DEFAULT '',
    status     TEXT NOT NULL DEFAULT 'complete',
    payload    TEXT,
    usage      TEXT,
    created_at INTEGER NOT NULL
);
CREATE INDEX messages_chat ON messages(chat_id, id);

CREATE VIRTUAL TABLE messages_fts USING fts5(content, content='messages', content_rowid='id');
CREATE TRIGGER messages_ai AFTER INSERT ON messages BEGIN
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;
CREATE TRIGGER messages_ad AFTER DELETE ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
END;
CREATE TRIGGER messages_au AFTER UPDATE OF content ON messages BEGIN
    INSERT INTO messages_fts(messages_fts, rowid, content) VALUES ('delete', old.id, old.content);
    INSERT INTO messages_fts(rowid, content) VALUES (new.id, new.content);
END;

CREATE TABLE tool_calls (
    id             INTEGER PRIMARY KEY,
    chat_id        INTEGER NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    message_id     INTEGER REFERENCES messages(id) ON DELETE SET NULL,
    round          INTEGER NOT NULL DEFAULT 0,
    seq            INTEGER NOT NULL,
    call_id        TEXT NOT NULL,
    requested_name TEXT NOT NULL,
    tool           TEXT,
    group_name     TEXT,
    raw_args       TEXT NOT NULL,
    resolved_args  TEXT,
    policy         TEXT,
    decision       TEXT,
    decided_by     TEXT NOT NULL DEFAULT 'none',
    status         TEXT NOT NULL,
    result_text    TEXT,
    is_error       INTEGER NOT NULL DEFAULT 0,
    truncated      INTEGER NOT NULL DEFAULT 0,
    result_var     TEXT,
    args_var       TEXT,
    started_at     INTEGER NOT NULL,
    ended_at       INTEGER,
    duration_ms    INTEGER,
    UNIQUE (chat_id, seq)
);
CREATE INDEX tool_calls_message ON tool_calls(message_id);

CREATE TABLE approval_records (
    chat_id    INTEGER NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    tool       TEXT NOT NULL,
    args_hash  TEXT NOT NULL,
    args       TEXT NOT NULL,
    allowed    INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (chat_id, tool, args_hash)
);

CREATE TABLE rules (
    id         INTEGER PRIMARY KEY,
    tool       TEXT NOT NULL,
    pattern    TEXT,
    action     TEXT NOT NULL CHECK (action IN ('allow', 'ask', 'deny')),
    chat_id    INTEGER REFERENCES chats(id) ON DELETE CASCADE,
    created_at INTEGER NOT NULL
);

CREATE TABLE variables (
    chat_id    INTEGER NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    name       TEXT NOT NULL,
    kind       TEXT NOT NULL,
    value      TEXT NOT NULL,
    last_used  INTEGER NOT NULL,
    created_at INTEGER NOT NULL,
    PRIMARY KEY (chat_id, name)
);

CREATE TABLE settings (
    key   TEXT PRIMARY KEY,
    value TEXT NOT NULL
);

CREATE TABLE mcp_servers (
    id         INTEGER PRIMARY KEY,
    name       TEXT NOT NULL UNIQUE,
    config     TEXT NOT NULL,
    enabled    INTEGER NOT NULL DEFAULT 1,
    created_at INTEGER NOT NULL
);
"#;

/// Chat ids are never handed out twice. SQLite gives a new row `max(id) + 1`, so deleting the
/// newest chat made its id the next one's: anything still keyed by the old id (a rule in memory,
/// a decision in flight, a stale UI) would then apply to a stranger. The high-water mark lives
/// in `id_sequence`; `create_chat` takes the next id from it and the trigger keeps it current
/// for any other insert.
const V2: &str = r#"
CREATE TABLE id_sequence (
    name TEXT PRIMARY KEY,
    last INTEGER NOT NULL
);
INSERT INTO id_sequence(name, last) VALUES ('chats', (SELECT COALESCE(MAX(id), 0) FROM chats));
CREATE TRIGGER chats_id_high_water AFTER INSERT ON chats BEGIN
    UPDATE id_sequence SET last = MAX(last, NEW.id) WHERE name = 'chats';
END;

-- Ask-once records are keyed by the arguments and the workspace they run in.
ALTER TABLE approval_records ADD COLUMN workspace TEXT;

-- How each provider's model calls tools: 'native' or 'text' (F-35).
ALTER TABLE providers ADD COLUMN tool_calling TEXT NOT NULL DEFAULT 'native';
"#;

/// Per-provider request options (F-29, F-34) as JSON: `requestStyle`, `thinkingBudget`. The
/// first schema's `mcp_servers` table was never used (MCP servers live in `settings`).
const V3: &str = r#"
ALTER TABLE providers ADD COLUMN options TEXT NOT NULL DEFAULT '{}';
DROP TABLE IF EXISTS mcp_servers;
"#;

/// A chat's own request parameters (F-58) as JSON: `temperature`, `maxTokens`.
const V4: &str = r#"
ALTER TABLE chats ADD COLUMN params TEXT NOT NULL DEFAULT '{}';
"#;

/// Presets ("assistants", F-58). A preset whose provider is removed falls back to the first
/// configured one, like a new chat.
const V5: &str = r#"
CREATE TABLE presets (
    id            INTEGER PRIMARY KEY,
    name          TEXT NOT NULL,
    system_prompt TEXT NOT NULL DEFAULT '',
    provider_id   INTEGER REFERENCES providers(id) ON DELETE SET NULL,
    model         TEXT NOT NULL DEFAULT '',
    params        TEXT NOT NULL DEFAULT '{}',
    groups        TEXT NOT NULL DEFAULT '{}',
    created_at    INTEGER NOT NULL
);
"#;

/// The message tree (F-56): each message's parent, and the end of the branch on screen. Rows
/// written before were one line, so each message's parent is the one before it. `parent_id` has
/// no foreign key: a cascade down a 10,000-message line would pass SQLite's trigger depth, and
/// messages are only ever deleted with their chat.
const V6: &str = r#"
ALTER TABLE messages ADD COLUMN parent_id INTEGER;
UPDATE messages SET parent_id = (
    SELECT MAX(p.id) FROM messages p WHERE p.chat_id = messages.chat_id AND p.id < messages.id
);
CREATE INDEX messages_parent ON messages(chat_id, parent_id);
ALTER TABLE chats ADD COLUMN leaf_id INTEGER;
UPDATE chats SET leaf_id = (SELECT MAX(id) FROM messages WHERE chat_id = chats.id);
"#;

/// Images an MCP tool returned with a result (F-45): a JSON list of attachments, NULL for none.
const V7: &str = r#"
ALTER TABLE tool_calls ADD COLUMN result_images TEXT;
"#;

/// How a sandboxed command ran and what the sandbox blocked (F-46): a JSON `SandboxReport`,
/// NULL for tools that run under no sandbox.
const V8: &str = r#"
ALTER TABLE tool_calls ADD COLUMN sandbox TEXT;
"#;

/// A heavy user's year (F-71). Deleting a chat takes its row at once and leaves its messages,
/// calls, records and variables to be purged in small steps (`chat_purges` lists the chats whose
/// rows are left, so a purge cut short by a crash goes on at the next start). The sidebar reads
/// chats a page at a time, newest first, ties by id; chat rules are found by chat. The calls and
/// messages a crash left running are found at start without reading every row (a year's tables
/// take seconds to scan): partial indexes hold only those rows, and the queries that use them
/// name the status literally (`recover_interrupted`).
const V9: &str = r#"
CREATE TABLE chat_purges (chat_id INTEGER PRIMARY KEY);
DROP INDEX chats_updated;
CREATE INDEX chats_by_update ON chats(updated_at DESC, id DESC);
CREATE INDEX rules_chat ON rules(chat_id);
CREATE INDEX tool_calls_running ON tool_calls(status) WHERE status = 'running';
CREATE INDEX messages_streaming ON messages(status) WHERE status = 'streaming';
"#;

/// The search index is merged in the background, never inside a write (F-71): FTS5 merges its
/// segments as part of the transaction that adds one, and on a year's index one such merge held
/// a small delete for 2.4 s. Automatic merging is off; `SearchIndex::tend_search_index_step` merges a
/// bounded piece at a time while the app is idle, and a level merges at once only when 64
/// segments pile up (the default is 16).
const V10: &str = r#"
INSERT INTO messages_fts(messages_fts, rank) VALUES('automerge', 0);
INSERT INTO messages_fts(messages_fts, rank) VALUES('crisismerge', 64);
"#;

/// A chat's revision (F-71): a number that grows with every write to what its history shows (its
/// messages, its tool calls, the branch it shows), so a window that already holds the chat can
/// ask whether it changed instead of reading thousands of messages again. Triggers keep it, so no
/// write path can forget to.
const V11: &str = r#"
ALTER TABLE chats ADD COLUMN revision INTEGER NOT NULL DEFAULT 0;
CREATE TRIGGER messages_insert_revises AFTER INSERT ON messages
BEGIN UPDATE chats SET revision = revision + 1 WHERE id = NEW.chat_id; END;
CREATE TRIGGER messages_update_revises AFTER UPDATE ON messages
BEGIN UPDATE chats SET revision = revision + 1 WHERE id = NEW.chat_id; END;
CREATE TRIGGER messages_delete_revises AFTER DELETE ON messages
BEGIN UPDATE chats SET revision = revision + 1 WHERE id = OLD.chat_id; END;
CREATE TRIGGER tool_calls_insert_revises AFTER INSERT ON tool_calls
BEGIN UPDATE chats SET revision = revision + 1 WHERE id = NEW.chat_id; END;
CREATE TRIGGER tool_calls_update_revises AFTER UPDATE ON tool_calls
BEGIN UPDATE chats SET revision = revision + 1 WHERE id = NEW.chat_id; END;
CREATE TRIGGER tool_calls_delete_revises AFTER DELETE ON tool_calls
BEGIN UPDATE chats SET revision = revision + 1 WHERE id = OLD.chat_id; END;
CREATE TRIGGER chats_branch_revises AFTER UPDATE OF leaf_id ON chats
BEGIN UPDATE chats SET revision = revision + 1 WHERE id = NEW.id; END;
"#;

/// The provenance gate (SPEC §10, F-80…F-85): where a variable's and a call's content came from
/// (JSON lists of `Source`), what the call could do, and how it went through the gate.
const V12: &str = r#"
ALTER TABLE variables ADD COLUMN sources TEXT;
ALTER TABLE tool_calls ADD COLUMN sources TEXT;
ALTER TABLE tool_calls ADD COLUMN effects TEXT;
ALTER TABLE tool_calls ADD COLUMN guard TEXT NOT NULL DEFAULT 'quiet';
CREATE INDEX tool_calls_tool ON tool_calls(tool, started_at);
"#;

/// Files written from untrusted content (SPEC §12): a file keeps the sources of what was written
/// into it, by workspace, path and the hash of its content, across chats and restarts.
const V13: &str = r#"
CREATE TABLE file_taint (
    workspace    TEXT NOT NULL,
    path         TEXT NOT NULL,
    content_hash TEXT NOT NULL,
    sources      TEXT NOT NULL,
    created_at   INTEGER NOT NULL,
    PRIMARY KEY (workspace, path)
);
"#;

/// MCP Apps views (F-96): a call's view and the result it shows, the calls a view made,
/// and the views' documents as last read from their servers (shown again after a restart
/// without asking the server).
const V14: &str = r#"
ALTER TABLE tool_calls ADD COLUMN view_server TEXT;
ALTER TABLE tool_calls ADD COLUMN view_uri TEXT;
ALTER TABLE tool_calls ADD COLUMN view_result TEXT;
ALTER TABLE tool_calls ADD COLUMN view_of INTEGER;
CREATE TABLE mcp_views (
    server     TEXT NOT NULL,
    uri        TEXT NOT NULL,
    resource   TEXT NOT NULL,
    fetched_at INTEGER NOT NULL,
    PRIMARY KEY (server, uri)
);
"#;

/// Taint that travels with content (F-97): the hashes of the lines written from untrusted
/// content, whatever file or path holds them now, each with the sources it came from.
const V15: &str = r#"
CREATE TABLE tainted_lines (
    hash       TEXT PRIMARY KEY,
    sources    TEXT NOT NULL,
    created_at INTEGER NOT NULL
);
"#;

/// Calls that go on after their turn as their server's task (F-99): the task's id, kept until
/// its result is recorded, the review the call's grant asked for its result, and the sources its
/// result and its arguments carry from what the model had read (JSON lists, NULL for none).
const V16: &str = r#"
CREATE TABLE call_tasks (
    chat_id     INTEGER NOT NULL REFERENCES chats(id) ON DELETE CASCADE,
    seq         INTEGER NOT NULL,
    task_id     TEXT NOT NULL,
    review      TEXT NOT NULL,
    result_from TEXT,
    args_from   TEXT,
    PRIMARY KEY (chat_id, seq)
);
"#;

/// What the chat's model answered the call's server (sampling, F-99): a JSON list of
/// `LentModel`, NULL for none.
const V17: &str = "ALTER TABLE tool_calls ADD COLUMN lent TEXT;";

/// What the call's server asked the user and how each question ended (F-99): a JSON list of
/// `AskedQuestion`, NULL for none.
const V18: &str = "ALTER TABLE tool_calls ADD COLUMN asked TEXT;";

fn migrations() -> Migrations<'static> {
    Migrations::new(vec![
        M::up(V1),
        M::up(V2),
        M::up(V3),
        M::up(V4),
        M::up(V5),
        M::up(V6),
        M::up(V7),
        M::up(V8),
        M::up(V9),
        M::up(V10),
        M::up(V11),
        M::up(V12),
        M::up(V13),
        M::up(V14),
        M::up(V15),
        M::up(V16),
        M::up(V17),
        M::up(V18),
    ])
}

/// Brings the schema to the latest version.
pub fn migrate(conn: &mut Connection) -> StoreResult<()> {
    migrations().to_latest(conn)?;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn migrations_are_valid_and_idempotent() {
        migrations().validate().unwrap();
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        migrate(&mut conn).unwrap();
        let version: i64 = conn
            .query_row("PRAGMA user_version", [], |r| r.get(0))
            .unwrap();
        assert_eq!(version, 18);
    }

    #[test]
    fn start_up_finds_what_a_crash_left_running_through_the_partial_indexes() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        for (sql, index) in [
            (super::super::calls::RECOVER_RUNNING, "tool_calls_running"),
            (
                super::super::messages::RECOVER_STREAMING,
                "messages_streaming",
            ),
        ] {
            let mut stmt = conn.prepare(&format!("EXPLAIN QUERY PLAN {sql}")).unwrap();
            let mut rows = stmt.raw_query();
            let mut plan = Vec::new();
            while let Some(row) = rows.next().unwrap() {
                plan.push(row.get::<_, String>(3).unwrap());
            }
            assert!(plan.iter().any(|p| p.contains(index)), "{sql}: {plan:?}");
        }
    }

    #[test]
    fn messages_written_before_the_tree_become_one_branch() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrations().to_version(&mut conn, 5).unwrap();
        conn.execute_batch(
            "INSERT INTO chats(id, created_at, updated_at) VALUES (1, 0, 0), (2, 0, 0), (3, 0, 0);
             INSERT INTO messages(id, chat_id, role, content, created_at) VALUES
                 (1, 1, 'user', 'q', 0), (2, 2, 'user', 'other', 0), (3, 1, 'assistant', 'a', 0), (4, 1, 'user', 'q2', 0);",
        )
        .unwrap();
        migrate(&mut conn).unwrap();
        let parents: Vec<(i64, Option<i64>)> = conn
            .prepare("SELECT id, parent_id FROM messages ORDER BY id")
            .unwrap()
            .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(parents, [(1, None), (2, None), (3, Some(1)), (4, Some(3))]);
        let leaves: Vec<Option<i64>> = conn
            .prepare("SELECT leaf_id FROM chats ORDER BY id")
            .unwrap()
            .query_map([], |r| r.get(0))
            .unwrap()
            .collect::<Result<_, _>>()
            .unwrap();
        assert_eq!(leaves, [Some(4), Some(2), None]);
    }

    #[test]
    fn full_text_search_follows_message_edits() {
        let mut conn = Connection::open_in_memory().unwrap();
        migrate(&mut conn).unwrap();
        conn.execute_batch(
            "INSERT INTO chats(id, created_at, updated_at) VALUES (1, 0, 0);
             INSERT INTO messages(id, chat_id, role, content, created_at) VALUES (1, 1, 'user', 'hello gatekeeper', 0);
             UPDATE messages SET content = 'goodbye porter' WHERE id = 1;",
        )
        .unwrap();
        let count = |q: &str| -> i64 {
            conn.query_row(
                "SELECT COUNT(*) FROM messages_fts WHERE messages_fts MATCH ?1",
                [q],
                |r| r.get(0),
            )
            .unwrap()
        };
        assert_eq!(count("gatekeeper"), 0);
        assert_eq!(count("porter"), 1);
    }
}
