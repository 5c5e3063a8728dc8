//! Landlock, applied to the process that becomes the command (F-46): writes only in
//! the workspace and the private temp folder, reads everywhere but the hidden paths, no TCP
//! while the network is off, and — from ABI 6 — no abstract UNIX socket and no signal outside
//! the sandbox. Inherited by everything the command starts; no `pre_exec`, no unsafe code.

use super::paths::{beneath_except, list_dir, readable_roots};
use super::{SandboxError, SandboxSpec};
use crate::protocol::SandboxLevel;
use std::path::PathBuf;

/// What the kernel enforced.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Applied {
    /// The Landlock ABI in effect (0: none).
    pub abi: u8,
    /// Whether every restriction asked for holds at that ABI.
    pub full: bool,
}

/// The ABI whose rights are asked for: tested here on kernels with ABI 6 and 7; a kernel with
/// less enforces what it can ("best effort") and [`Applied`] says how much.
#[cfg(target_os = "linux")]
const ABI: landlock::ABI = landlock::ABI::V6;

/// Restricts this process (and every process it starts from now on) as `spec` says. `temp` is
/// where the private temp folder is as this process sees it; `shm` whether `/dev/shm` is a
/// private one (inside the namespaces) that may be written; `proxy_port` the one TCP port the
/// command may connect to while the network is off (the proxy's forwarder, "only these hosts").
#[cfg(target_os = "linux")]
pub fn restrict(
    spec: &SandboxSpec,
    temp: PathBuf,
    shm: bool,
    proxy_port: Option<u16>,
) -> Result<Applied, SandboxError> {
    use landlock::{
        path_beneath_rules, Access, AccessFs, AccessNet, LandlockStatus, NetPort, Ruleset,
        RulesetAttr, RulesetCreatedAttr, RulesetStatus, Scope,
    };
    let failed = |e: landlock::RulesetError| SandboxError::Failed(e.to_string());
    let mut ruleset = Ruleset::default()
        .handle_access(AccessFs::from_all(ABI))
        .map_err(failed)?
        .scope(Scope::from_all(ABI))
        .map_err(failed)?;
    if !spec.network {
        ruleset = ruleset
            .handle_access(AccessNet::from_all(ABI))
            .map_err(failed)?;
    }
    let hidden: Vec<PathBuf> = spec
        .hidden
        .iter()
        .filter(|h| !spec.workspace.starts_with(h))
        .cloned()
        .collect();
    let workspace = beneath_except(&spec.workspace, &hidden, &list_dir);
    let mut writable = vec![temp, PathBuf::from("/dev/null")];
    if shm {
        writable.push(PathBuf::from("/dev/shm"));
    }
    if spec.level == SandboxLevel::WorkspaceOnly {
        writable.extend(workspace.iter().cloned());
        for folder in spec.writable.iter().filter(|f| f.exists()) {
            writable.extend(beneath_except(folder, &hidden, &list_dir));
        }
    }
    let mut created = ruleset.create().map_err(failed)?;
    if let (false, Some(port)) = (spec.network, proxy_port) {
        created = created
            .add_rule(NetPort::new(port, AccessNet::ConnectTcp))
            .map_err(failed)?;
    }
    let status = created
        .add_rules(path_beneath_rules(
            readable_roots(&hidden, &list_dir),
            AccessFs::from_read(ABI),
        ))
        .map_err(failed)?
        .add_rules(path_beneath_rules(workspace, AccessFs::from_read(ABI)))
        .map_err(failed)?
        .add_rules(path_beneath_rules(writable, AccessFs::from_all(ABI)))
        .map_err(failed)?
        .restrict_self()
        .map_err(failed)?;
    let abi = match status.landlock {
        LandlockStatus::Available { effective_abi, .. } => effective_abi as u8,
        LandlockStatus::NotEnabled | LandlockStatus::NotImplemented => 0,
    };
    match status.ruleset {
        RulesetStatus::FullyEnforced => Ok(Applied { abi, full: true }),
        RulesetStatus::PartiallyEnforced => Ok(Applied { abi, full: false }),
        RulesetStatus::NotEnforced => Ok(Applied {
            abi: 0,
            full: false,
        }),
    }
}

/// No Landlock off Linux.
#[cfg(not(target_os = "linux"))]
pub fn restrict(_spec: &SandboxSpec, _temp: PathBuf, _shm: bool) -> Result<Applied, SandboxError> {
    Ok(Applied {
        abi: 0,
        full: false,
    })
}
