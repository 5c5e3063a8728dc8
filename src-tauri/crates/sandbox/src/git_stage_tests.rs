//! The unit tests of `git_stage.rs`: what comes back from a copy of a git folder, and what
//! is undone in one a command wrote directly.
#![allow(clippy::unwrap_used)]
use super::*;

#[test]
fn only_gits_data_is_data_in_every_root() {
    let roots: Vec<PathBuf> = ["", "modules/sub", "modules/libs/foo", "worktrees/wt"]
        .iter()
        .map(PathBuf::from)
        .collect();
    let data = |p: &str| is_git_data(Path::new(p), &roots);
    for yes in [
        "index",
        "HEAD",
        "packed-refs",
        "refs/heads/main",
        "logs/HEAD",
        "objects/ab/cdef",
        "info/exclude",
        "rebase-merge/todo",
        "modules/sub/index",
        "modules/sub/refs/heads/x",
        "modules/libs/foo/HEAD",
        "worktrees/wt/HEAD",
        "worktrees/wt/index",
    ] {
        assert!(data(yes), "{yes}");
    }
    // Everything else, whatever its name: settings, hooks, links to other folders, a new
    // submodule's folder, a data folder's own name as a file.
    for no in [
        "config",
        "commondir",
        "hooks/pre-commit",
        "info/attributes",
        "config.worktree",
        "gitdir",
        "modules/sub/config",
        "modules/sub/commondir",
        "modules/new/HEAD",
        "modules/new/config",
        "worktrees/wt/commondir",
        "worktrees/wt/gitdir",
        "worktrees/wt/config.worktree",
        "worktrees/new/HEAD",
        "refs",
        "fsmonitor--daemon.ipc",
        "anything-new",
        "../outside",
    ] {
        assert!(!data(no), "{no}");
    }
}

fn write(root: &Path, rel: &str, text: &str) {
    let path = root.join(rel);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(path, text).unwrap();
}

/// The copy is settled as the command left it: data comes back (new, changed, removed),
/// anything else does not and is named, and a file changed outside meanwhile is kept.
#[test]
fn a_copy_gives_back_gits_data_and_nothing_else() {
    let dir = tempfile::tempdir().unwrap();
    let git = dir.path().canonicalize().unwrap().join(".git");
    write(&git, "HEAD", "ref: refs/heads/main\n");
    write(&git, "config", "[core]\n");
    write(&git, "refs/heads/main", "1111\n");
    write(&git, "refs/heads/old", "2222\n");
    write(&git, "objects/ab/cd", "object");
    write(&git, "index", "index-1");
    write(&git, "modules/sub/HEAD", "ref: refs/heads/main\n");
    write(&git, "modules/sub/config", "[core]\n");
    write(&git, "modules/sub/objects/ef/01", "sub-object");
    write(&git, "FETCH_HEAD", "fetch-1");
    let staging = GitStaging::prepare(std::slice::from_ref(&git), true).unwrap();
    let folders = staging.folders();
    let GitShown::Copy { stage, stores } = folders[0].shown.clone() else {
        panic!("{folders:?}");
    };
    assert_eq!(
        stores,
        [
            PathBuf::from("objects"),
            PathBuf::from("modules/sub/objects")
        ]
    );
    // Object stores are bound in, not copied: their place in the copy is an empty folder.
    assert!(stage.join("objects").is_dir() && !stage.join("objects/ab").exists());
    assert_eq!(
        std::fs::read_to_string(stage.join("config")).unwrap(),
        "[core]\n"
    );

    // What a command does in the copy.
    write(&stage, "refs/heads/main", "3333\n");
    write(&stage, "refs/heads/feature/x", "4444\n");
    std::fs::remove_file(stage.join("refs/heads/old")).unwrap();
    write(&stage, "index", "index-2");
    write(&stage, "COMMIT_EDITMSG", "msg\n");
    write(&stage, "modules/sub/HEAD", "abcd\n");
    write(&stage, "config", "[core]\n\tfsmonitor = touch /tmp/pwned\n");
    write(&stage, "commondir", "../../evil\n");
    write(&stage, "hooks/pre-commit", "#!/bin/sh\n");
    write(&stage, "modules/sub/commondir", "../../../evil\n");
    write(&stage, "modules/planted/HEAD", "ref: refs/heads/main\n");
    write(&stage, "modules/planted/config", "[core]\n");
    write(&stage, "index.lock", "");
    std::os::unix::fs::symlink("/etc", stage.join("refs/heads/link")).unwrap();
    std::fs::remove_file(stage.join("modules/sub/config")).unwrap();
    // Meanwhile, outside: the user fetches.
    write(&git, "FETCH_HEAD", "fetch-2-outside");
    write(&stage, "FETCH_HEAD", "fetch-2-inside");

    let lines = staging.settle();
    let read = |rel: &str| std::fs::read_to_string(git.join(rel)).ok();
    assert_eq!(read("refs/heads/main").as_deref(), Some("3333\n"));
    assert_eq!(read("refs/heads/feature/x").as_deref(), Some("4444\n"));
    assert_eq!(read("refs/heads/old"), None);
    assert_eq!(read("index").as_deref(), Some("index-2"));
    assert_eq!(read("COMMIT_EDITMSG").as_deref(), Some("msg\n"));
    assert_eq!(read("modules/sub/HEAD").as_deref(), Some("abcd\n"));
    assert_eq!(read("config").as_deref(), Some("[core]\n"));
    assert_eq!(read("modules/sub/config").as_deref(), Some("[core]\n"));
    assert_eq!(read("FETCH_HEAD").as_deref(), Some("fetch-2-outside"));
    for absent in [
        "commondir",
        "hooks/pre-commit",
        "modules/sub/commondir",
        "modules/planted/HEAD",
        "index.lock",
        "refs/heads/link",
    ] {
        assert!(
            std::fs::symlink_metadata(git.join(absent)).is_err(),
            "{absent}"
        );
    }
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(
        lines[0].starts_with(
            "writing commondir, config, hooks/pre-commit, modules/planted/HEAD, modules/planted/config, modules/sub/commondir, … and 2 more in git's folder"
        ),
        "{lines:?}"
    );
    assert!(lines[1].contains("FETCH_HEAD was kept"), "{lines:?}");
    assert!(!stage.exists(), "the copies are removed once settled");
}

/// Without namespaces the command writes the real folder; what is not data is undone.
#[test]
fn without_namespaces_what_is_not_data_is_undone() {
    let dir = tempfile::tempdir().unwrap();
    let git = dir.path().join(".git");
    write(&git, "HEAD", "ref: refs/heads/main\n");
    write(&git, "config", "[core]\n");
    write(&git, "hooks/pre-commit.sample", "#!/bin/sh\n");
    write(&git, "refs/heads/main", "1\n");
    write(&git, "objects/ab/cd", "o");
    write(&git, "modules/sub/HEAD", "x\n");
    write(&git, "modules/sub/config", "[core]\n");
    let staging = GitStaging::prepare(std::slice::from_ref(&git), false).unwrap();
    assert_eq!(staging.folders()[0].shown, GitShown::Undone);
    write(&git, "config", "[core]\n\tfsmonitor = touch /tmp/pwned\n");
    write(&git, "commondir", "../evil\n");
    write(&git, "modules/sub/commondir", "../evil\n");
    std::fs::remove_file(git.join("hooks/pre-commit.sample")).unwrap();
    write(&git, "refs/heads/main", "2\n");
    write(&git, "index", "new index");
    write(&git, "modules/sub/HEAD", "y\n");
    let lines = staging.settle();
    let read = |rel: &str| std::fs::read_to_string(git.join(rel)).ok();
    assert_eq!(read("config").as_deref(), Some("[core]\n"));
    assert_eq!(read("commondir"), None);
    assert_eq!(read("modules/sub/commondir"), None);
    assert_eq!(
        read("hooks/pre-commit.sample").as_deref(),
        Some("#!/bin/sh\n")
    );
    assert_eq!(read("refs/heads/main").as_deref(), Some("2\n"));
    assert_eq!(read("index").as_deref(), Some("new index"));
    assert_eq!(read("modules/sub/HEAD").as_deref(), Some("y\n"));
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert!(
        lines[0].starts_with(
            "writing commondir, config, hooks/pre-commit.sample, modules/sub/commondir in git's folder"
        ),
        "{lines:?}"
    );
}
