// Generated from Tollgate's Rust types by src-tauri/crates/app/tests/bindings.rs (ts-rs). Do not edit:
// change the Rust type, then run `TOLLGATE_WRITE_BINDINGS=1 cargo test --workspace --test bindings`.
/* eslint-disable */
// The sandbox: what the system supports, a chat's setting, what a command met.

export type SandboxLevel = "workspaceOnly" | "readOnly" | "off";

export type ChatSandbox = { level: SandboxLevel, network: boolean, 
/**
 * With the network off, the hosts commands may still reach through Tollgate's proxy
 * ("only these hosts": a package registry, say); empty, none (F-46).
 */
hosts?: Array<string>, 
/**
 * Commands may change the workspace's git hooks and configuration (which run code outside
 * the sandbox later); off by default (F-46).
 */
gitWritable?: boolean, 
/**
 * Variables the user adds to the commands' clean environment (never a secret, nor the
 * address of a service outside: the service refuses those names).
 */
env?: { [key in string]: string }, };

export type SandboxSupport = { 
/**
 * The Landlock ABI the kernel enforces; 0 where it has none.
 */
landlockAbi: number, 
/**
 * Whether commands get namespaces of their own (mount, PID, network, IPC).
 */
namespaces: boolean, 
/**
 * Why there are no namespaces, when there are none.
 */
namespacesMissing?: string, 
/**
 * Why there is no sandbox at all, when there is none.
 */
unavailable?: string, 
/**
 * What is not enforced for a chat with the network off ([`SandboxSupport::gaps`]).
 */
gapsNetworkOff: Array<SandboxGap>, 
/**
 * What is not enforced for a chat with the network on.
 */
gapsNetworkOn: Array<SandboxGap>, };

export type SandboxGap = "localSockets" | "network" | "udp" | "abstractSockets" | "signals" | "protectedPaths" | "truncate" | "deviceIoctl" | "fileRules" | "hostsOnly";

export type SandboxMode = "confined" | "partial" | "off" | "unavailable";

export type SandboxReport = { level: SandboxLevel, network: boolean, 
/**
 * The hosts the command may reach with the network off ("only these hosts").
 */
hosts?: Array<string>, mode: SandboxMode, 
/**
 * What this system cannot enforce for this command (empty when [`SandboxMode::Confined`]).
 */
gaps?: Array<SandboxGap>, 
/**
 * The names of the variables the chat added to the clean environment.
 */
env?: Array<string>, 
/**
 * Whether git's hooks and configuration were writable (the chat allowed it).
 */
gitWritable?: boolean, 
/**
 * One line per kind of operation the sandbox blocked ("writing outside the workspace:
 * /home/ann/outside"), as the model was told.
 */
blocked?: Array<string>, 
/**
 * The workspace the command ran in: a rerun runs there, not in the chat's current one.
 */
workspace?: string, 
/**
 * Files in the workspace the blocked run changed (relative paths, a few): a rerun without
 * the sandbox would run them as the blocked run left them, so it names them first.
 */
changed?: Array<string>, };
