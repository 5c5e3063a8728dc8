// Generated from Tollgate's Rust types by src-tauri/crates/app/tests/bindings.rs (ts-rs). Do not edit:
// change the Rust type, then run `TOLLGATE_WRITE_BINDINGS=1 cargo test --workspace --test bindings`.
/* eslint-disable */
// A task's plan and the grant the user makes of it.

export type PlanStep = { 
/**
 * What the step does, in the model's plain words (shown on the card).
 */
purpose: string, 
/**
 * The tool it calls, by the name the chat offers.
 */
tool: string, 
/**
 * How many calls the step may make (at least 1).
 */
maxCalls: number, 
/**
 * What the step's calls may point at, in the rule vocabulary of the tool (F-08): command
 * words (`git status *`), a path glob (`reports/*.md`), a URL wildcard. `None`: any.
 */
pattern?: string, 
/**
 * The targets its calls may reach — recipients, accounts, hosts and URLs — as the plan
 * writes them, compared as values (F-97): a call whose target arguments name anything
 * else is off the plan. Empty: the step reaches no target.
 */
targets: Array<string>, };

export type PlanProposal = { steps: Array<PlanStep>, minutes?: number, };

export type GrantSpan = { "type": "turn" } | { "type": "until", endsAtMs: number, };

export type TaskGrant = { steps: Array<PlanStep>, span: GrantSpan, };

export type OffPlan = { "type": "tool" } | { "type": "usedUp", maxCalls: number, } | { "type": "pattern", subject: string, } | { "type": "target", argument: string, value: string, };
