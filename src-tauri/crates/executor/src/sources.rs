//! Where a call's result came from (F-80, SPEC §12): the labels the provenance gate reads.

use super::facets::Sources;
use super::grant::GuardView;
use serde_json::Value;
use sha2::{Digest, Sha256};
use tollgate_protocol::{GuardNote, SandboxReport, Source};
use tollgate_provenance::{distinct, Trust};
use tollgate_tools::files::workspace::Workspace;
use tollgate_tools::{ContentKind, RegisteredTool};

/// The largest file whose taint is kept and read (SPEC §12): hashing a larger one on every
/// read costs more than its provenance is worth; such a file is judged by its folder alone.
const MAX_TAINTED_BYTES: u64 = 64 * 1024 * 1024;

/// The real path of `rel` in `workspace`, the workspace's real path and the file's name in it
/// (the record's key: the real path, whatever workspace string reached it).
fn file_name(
    workspace: &std::path::Path,
    rel: &str,
) -> Option<(std::path::PathBuf, String, String)> {
    let ws = Workspace::of(Some(workspace)).ok()?;
    let real = ws.existing(rel).ok()?;
    let name = ws.relative(&real);
    Some((real, ws.root().to_string_lossy().into_owned(), name))
}

/// The hashes of the lines of `text` as a reader shows them: each line as it is, and without
/// the `path:line:` (grep, ripgrep) or `  12\t` (`cat -n`, `nl`) a reader puts before it.
fn shown_line_hashes(text: &str) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for line in text.lines() {
        lines.push(line.to_string());
        let mut rest = line;
        for _ in 0..2 {
            match rest.split_once(':') {
                Some((field, after))
                    if !field.is_empty() && !field.contains(char::is_whitespace) =>
                {
                    lines.push(after.to_string());
                    rest = after;
                }
                _ => break,
            }
        }
        if let Some((number, after)) = line.trim_start().split_once('\t') {
            if number.chars().all(|c| c.is_ascii_digit()) {
                lines.push(after.to_string());
            }
        }
    }
    line_hashes(&lines.join("\n"))
}

/// The shortest line (in letters and digits) whose hash is kept and looked up: shorter ones
/// (`}`, `import os`, a shebang) are in every file.
pub(super) const TAINTED_LINE: usize = 24;

/// The hashes of the lines of `text` that taint follows (F-97): each line's letters and
/// digits, lower case — so re-indenting, re-wrapping spaces, CRLF or quotes changed by a
/// formatter keep it — when it has at least [`TAINTED_LINE`] of them, or when it names a
/// target ([`names_a_target`]): `to: ab@ev.io` is short, and it is the line a copy must not
/// lose.
pub fn line_hashes(text: &str) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for line in text.lines() {
        let normal: String = line
            .chars()
            .filter(|c| c.is_alphanumeric())
            .flat_map(char::to_lowercase)
            .collect();
        if normal.is_empty() || (normal.chars().count() < TAINTED_LINE && !names_a_target(line)) {
            continue;
        }
        let hash = hex::encode(&Sha256::digest(normal.as_bytes())[..16]);
        if !out.contains(&hash) {
            out.push(hash);
        }
    }
    out
}

/// Whether a short line names a target as the gate reads targets: an e-mail or web address,
/// an account, a number of five digits or more. (A bare host is left out: `self.name` reads
/// as one, and short lines of code are in every file.) Read only for lines with a character
/// such a target needs.
fn names_a_target(line: &str) -> bool {
    use tollgate_provenance::target_values::{values_in_text, TargetValue, MIN_DIGITS};
    let may = line.contains(['@', ':'])
        || line.chars().filter(char::is_ascii_digit).count() >= MIN_DIGITS;
    may && values_in_text(line).iter().any(|v| {
        matches!(
            v,
            TargetValue::Email(_)
                | TargetValue::Url(_)
                | TargetValue::Iban(_)
                | TargetValue::Number(_)
        )
    })
}

/// The hash of a file's content, if it is a file small enough to keep provenance for.
async fn content_hash(real: &std::path::Path) -> Option<String> {
    let meta = tokio::fs::metadata(real).await.ok()?;
    if !meta.is_file() || meta.len() > MAX_TAINTED_BYTES {
        return None;
    }
    let bytes = tokio::fs::read(real).await.ok()?;
    Some(hex::encode(Sha256::digest(&bytes)))
}

/// What a successful run left for [`Sources::result_provenance`] to read.
pub(super) struct Ran<'a> {
    /// The result's own sources ([`Sources::result_sources`]).
    pub sources: Vec<Source>,
    /// The result as the model will read it.
    pub text: &'a str,
    /// The sandbox's report of a command's run.
    pub report: Option<&'a SandboxReport>,
    /// The workspace's files before a command ran ([`Sources::files_before_command`]).
    pub before: Option<tollgate_tools::changed_files::Files>,
}

/// The network a command's output may carry (SPEC §12): when the run could reach the network
/// — its sandbox let it, or there was no sandbox to stop it — whatever it fetched is in what
/// it printed, and that text has no author the user knows. `command`: the run's own source.
fn network_source(report: Option<&SandboxReport>, command: Option<&Source>) -> Option<Source> {
    let folder = match command {
        Some(Source::Command { folder }) => folder.clone(),
        _ => String::new(),
    };
    let any = || Source::Network {
        folder: folder.clone(),
        hosts: Vec::new(),
    };
    let Some(report) = report else {
        return Some(any());
    };
    let cut = report.confined() && !report.gaps.iter().any(|g| g.leaves_network());
    match (report.network, cut, report.hosts.is_empty()) {
        (true, _, _) | (false, false, _) => Some(any()),
        (false, true, false) => Some(Source::Network {
            folder,
            hosts: report.hosts.clone(),
        }),
        (false, true, true) => None,
    }
}

impl Sources<'_> {
    /// Everything a successful call's result carries (F-80, SPEC §12, F-97), and what the
    /// call leaves behind for later reads: the result's own sources; a command's network; a
    /// file's record; a lookup keyed on what untrusted content named; the lines of it written
    /// from untrusted content, through any file or reader; and the sources a written file, or
    /// a file a command wrote, keeps.
    pub(super) async fn result_provenance(
        &self,
        entry: &RegisteredTool,
        args: &Value,
        ran: Ran<'_>,
        view: GuardView<'_>,
    ) -> Vec<Source> {
        let mut sources = ran.sources;
        let content = &entry.tool.spec().content;
        match content {
            ContentKind::Command => {
                sources.extend(network_source(ran.report, sources.first()));
            }
            // A file keeps what it was written from (SPEC §12).
            ContentKind::Workspace => {
                if let Some(path) = args.get("path").and_then(Value::as_str) {
                    sources.extend(self.file_taint(path).await);
                }
            }
            ContentKind::Own
            | ContentKind::Web
            | ContentKind::Mcp { .. }
            | ContentKind::Variables => {}
        }
        // A lookup keyed on what untrusted content named returns what it chose.
        sources.extend(self.derived_sources(args, view));
        self.taint_written(entry, args, view).await;
        // Lines written from untrusted content carry its sources through any file, path or
        // reader (read, grep, `cat`).
        if matches!(
            content,
            ContentKind::Workspace | ContentKind::Command | ContentKind::Variables
        ) {
            for s in self.lines_taint(ran.text).await {
                if !sources.contains(&s) {
                    sources.push(s);
                }
            }
        }
        // A command in a chat that read untrusted content, or that could reach the network:
        // what it wrote keeps that (`curl -o notes.md` is the page's).
        if let Some(before) = ran.before {
            let mut carried = self.untrusted_in_view(view);
            carried.extend(
                sources
                    .iter()
                    .filter(|s| matches!(s, Source::Network { .. }))
                    .cloned(),
            );
            self.taint_command_writes(before, &carried).await;
        }
        sources
    }

    /// The sources a workspace file carries because it was written from untrusted content
    /// (SPEC §12), if its content is still what was written. Found by the file's real path,
    /// whatever workspace string reached it then or now (a chat on a subfolder, a symlinked
    /// path). The file is read (and hashed) only when it has a record: reading a file with none
    /// costs one lookup. (Its lines carry their sources on their own: [`Self::lines_taint`].)
    pub(super) async fn file_taint(&self, rel: &str) -> Vec<Source> {
        let Some(workspace) = self.exec.workspace() else {
            return Vec::new();
        };
        let Some((real, _, _)) = file_name(&workspace, rel) else {
            return Vec::new();
        };
        let store = &self.exec.deps.store;
        let (folder, path, written, sources) =
            match store.taint().file_taint_at(&real.to_string_lossy()).await {
                Ok(Some(record)) => record,
                Ok(None) => return Vec::new(),
                Err(e) => {
                    tracing::warn!("the provenance of {rel} could not be read: {e}");
                    return Vec::new();
                }
            };
        if content_hash(&real).await.as_deref() == Some(written.as_str()) {
            return sources;
        }
        // Changed by other means (or gone): it no longer carries what was written into it.
        if let Err(e) = store.taint().forget_file_taint(&folder, &path).await {
            tracing::warn!("the provenance of {path} could not be cleared: {e}");
        }
        Vec::new()
    }

    /// After a call wrote a workspace file: the file keeps the untrusted sources the model had
    /// read when it wrote it, and those its arguments expanded (SPEC §12). Written from nothing
    /// untrusted, it keeps none (an earlier record no longer matches its content).
    pub(super) async fn taint_written(
        &self,
        entry: &RegisteredTool,
        args: &Value,
        view: GuardView<'_>,
    ) {
        let Some(rel) = entry
            .tool
            .spec()
            .writes_file
            .and_then(|key| args.get(key))
            .and_then(Value::as_str)
        else {
            return;
        };
        let sources = self.untrusted_in_view(view);
        if sources.is_empty() {
            return;
        }
        let Some(workspace) = self.exec.workspace() else {
            return;
        };
        self.taint_file(&workspace, rel, &sources).await;
    }

    /// Runs `f` with what this chat trusts: the settings' trusted sources and what the user
    /// endorsed for this chat (F-82). The one place a [`Trust`] is made from the two.
    pub(super) fn with_trust<R>(&self, f: impl FnOnce(&Trust<'_>) -> R) -> R {
        let settings = self.exec.deps.settings.read();
        let overrides = self.exec.overrides.read();
        f(&Trust {
            settings: &settings,
            endorsed: &overrides.endorsed,
        })
    }

    /// The untrusted sources the model had read when it made the call, and those its
    /// arguments expanded: what anything the call writes was written from.
    pub(super) fn untrusted_in_view(&self, view: GuardView<'_>) -> Vec<Source> {
        let read = view.exposure.map(|e| e.sources()).unwrap_or_default();
        self.with_trust(|trust| {
            distinct(
                view.expanded
                    .iter()
                    .flat_map(|(sources, _)| sources.iter())
                    .chain(read.iter().rev())
                    .filter(|s| trust.untrusted(s))
                    .cloned(),
            )
        })
        .into_iter()
        .take(GuardNote::MAX_SOURCES)
        .collect()
    }

    /// Keeps `sources` with the file `rel` of `workspace` as it is now: a record by its real
    /// path and content hash (Settings → Gate lists it), and its lines wherever they go next.
    pub(super) async fn taint_file(
        &self,
        workspace: &std::path::Path,
        rel: &str,
        sources: &[Source],
    ) {
        let Some((real, folder, path)) = file_name(workspace, rel) else {
            return;
        };
        let Some(hash) = content_hash(&real).await else {
            return;
        };
        let store = &self.exec.deps.store;
        if let Err(e) = store
            .taint()
            .set_file_taint(&folder, &path, &hash, sources)
            .await
        {
            tracing::warn!("the provenance of {path} could not be kept: {e}");
        }
        let text = tokio::fs::read(&real)
            .await
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default();
        if let Err(e) = store.taint().taint_lines(line_hashes(&text), sources).await {
            tracing::warn!("the provenance of {path}'s lines could not be kept: {e}");
        }
    }

    /// The sources of the lines of `text` (a result that shows file content) written from
    /// untrusted content before, whatever file, path or tool they come through now.
    pub(super) async fn lines_taint(&self, text: &str) -> Vec<Source> {
        match self
            .exec
            .deps
            .store
            .taint()
            .lines_taint(shown_line_hashes(text))
            .await
        {
            Ok(sources) => sources,
            Err(e) => {
                tracing::warn!("the provenance of a result's lines could not be read: {e}");
                Vec::new()
            }
        }
    }

    /// The workspace's files before a command runs, when what it writes may have to keep the
    /// chat's sources: the chat read untrusted content, or the command may reach the network.
    pub(super) async fn files_before_command(
        &self,
        entry: &RegisteredTool,
        view: GuardView<'_>,
    ) -> Option<tollgate_tools::changed_files::Files> {
        if !matches!(entry.tool.spec().content, ContentKind::Command) {
            return None;
        }
        let chat = self.exec.sandbox_plan().chat;
        let network = chat.network || !chat.hosts.is_empty() || !chat.level.confines();
        if !network && self.untrusted_in_view(view).is_empty() {
            return None;
        }
        let root = self.exec.workspace()?;
        tokio::task::spawn_blocking(move || tollgate_tools::changed_files::Files::of(&root))
            .await
            .ok()
    }

    /// After a command ran in a chat that had read untrusted content or could reach the
    /// network: every file it wrote in the workspace (new or changed since `before`) keeps
    /// those sources (`sources`), as a file written with `write_file` would — a page saved with
    /// `curl -o` is the page's.
    pub(super) async fn taint_command_writes(
        &self,
        before: tollgate_tools::changed_files::Files,
        sources: &[Source],
    ) {
        if sources.is_empty() {
            return;
        }
        let Some(workspace) = self.exec.workspace() else {
            return;
        };
        let root = workspace.clone();
        let changed = tokio::task::spawn_blocking(move || before.written_since(&root))
            .await
            .unwrap_or_default();
        for rel in changed {
            self.taint_file(&workspace, &rel, sources).await;
        }
    }

    /// The untrusted sources the call's short arguments name, and the user did not
    /// (`provenance::derived_sources`, F-97): its result is derived from them.
    pub(super) fn derived_sources(&self, args: &Value, view: GuardView<'_>) -> Vec<Source> {
        let Some(exposure) = view.exposure else {
            return Vec::new();
        };
        self.with_trust(|trust| {
            tollgate_provenance::derived_sources(exposure, trust, args)
                .into_iter()
                .take(GuardNote::MAX_SOURCES)
                .collect()
        })
    }

    /// Where a call's result came from (F-80), by what its tool's results hold: the page at its
    /// URL, the file or pattern in the workspace, the command's folder, the MCP server's tool,
    /// the variable it read. Tollgate's own results have none.
    pub(super) fn result_sources(&self, entry: &RegisteredTool, args: &Value) -> Vec<Source> {
        let spec = entry.tool.spec();
        let text = |key: &str| args.get(key).and_then(Value::as_str).map(str::to_string);
        let folder = || {
            self.exec
                .workspace()
                .map(|w| w.to_string_lossy().into_owned())
                .unwrap_or_default()
        };
        match &spec.content {
            ContentKind::Own => Vec::new(),
            ContentKind::Workspace => vec![Source::File {
                folder: folder(),
                path: text("path")
                    .or_else(|| text("pattern"))
                    .unwrap_or_else(|| ".".into()),
            }],
            ContentKind::Command => vec![Source::Command { folder: folder() }],
            ContentKind::Web => {
                let url = text("url").unwrap_or_default();
                let host = tollgate_names::url_host(&url).unwrap_or_default();
                vec![Source::Web { url, host }]
            }
            ContentKind::Mcp { server } => vec![Source::McpTool {
                server: server.clone(),
                tool: spec.name.clone(),
            }],
            ContentKind::Variables => text("name")
                .and_then(|name| self.exec.vars.sources(&name))
                .map(|s| s.to_vec())
                .unwrap_or_default(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use tollgate_protocol::{ChatSandbox, SandboxGap, SandboxLevel, SandboxSupport};

    fn report(network: bool, hosts: &[&str], level: SandboxLevel, ns: bool) -> SandboxReport {
        let chat = ChatSandbox {
            level,
            network,
            hosts: hosts.iter().map(|h| h.to_string()).collect(),
            ..ChatSandbox::default()
        };
        let missing = (!ns).then(|| "no user namespaces".to_string());
        SandboxReport::planned(&chat, &SandboxSupport::new(true, 6, missing))
    }

    #[test]
    fn a_command_that_could_reach_the_network_carries_it_and_one_cut_off_does_not() {
        let command = Source::Command {
            folder: "/w".into(),
        };
        let any = Some(Source::Network {
            folder: "/w".into(),
            hosts: Vec::new(),
        });
        let ws = SandboxLevel::WorkspaceOnly;
        let run = |r: SandboxReport| network_source(Some(&r), Some(&command));
        assert_eq!(
            run(report(false, &[], ws, true)),
            None,
            "network off, enforced"
        );
        assert_eq!(run(report(true, &[], ws, true)), any, "network on");
        assert_eq!(
            run(report(false, &["registry.npmjs.org"], ws, true)),
            Some(Source::Network {
                folder: "/w".into(),
                hosts: vec!["registry.npmjs.org".into()],
            }),
            "only these hosts"
        );
        assert_eq!(
            run(report(false, &[], SandboxLevel::Off, true)),
            any,
            "no sandbox: nothing cut the network"
        );
        assert_eq!(network_source(None, Some(&command)), any, "no report");
        // Landlock alone (no namespaces): TCP is closed, but UDP and DNS still leave.
        let landlock_only = report(false, &[], ws, false);
        assert!(landlock_only.gaps.contains(&SandboxGap::Udp));
        assert_eq!(run(landlock_only), any, "UDP leaves: it counts as network");
    }
}
