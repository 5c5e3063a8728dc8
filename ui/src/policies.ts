/**
 * The policy choices the settings offer, each listed once with the words for it. Every select
 * of policies (a tool's override, an MCP server's policy) takes its options from here, so a
 * policy added to the engine shows up in all of them — the records below fail to compile until
 * it has its words.
 */
import type { Key } from "./i18n";
import type { ExecutionPolicy, ResultPolicy, RuleAction } from "./types";

/** Whether a call may run: from least to most restrictive, the order the selects list them. */
const EXECUTION: Record<ExecutionPolicy, Key> = {
  auto: "policy.auto",
  "ask-once": "policy.ask-once",
  "ask-always": "policy.ask-always",
  deny: "policy.deny",
};

/** When a call's result waits for review before the model sees it. */
const RESULT: Record<ResultPolicy, Key> = {
  never: "policy.never",
  "on-error": "policy.on-error",
  always: "policy.always",
};

export const EXECUTION_POLICIES = Object.keys(EXECUTION) as ExecutionPolicy[];
export const RESULT_POLICIES = Object.keys(RESULT) as ResultPolicy[];

export function executionPolicyKey(policy: ExecutionPolicy): Key {
  return EXECUTION[policy];
}

export function resultPolicyKey(policy: ResultPolicy): Key {
  return RESULT[policy];
}

/** The words for a rule's action. */
export function ruleActionKey(action: RuleAction): Key {
  switch (action) {
    case "allow":
      return "rules.action.allow";
    case "ask":
      return "rules.action.ask";
    case "deny":
      return "rules.action.deny";
  }
}

/** The execution policy whose colours a rule's action is shown in (an allow rule reads like auto). */
export function ruleActionTone(action: RuleAction): ExecutionPolicy {
  switch (action) {
    case "allow":
      return "auto";
    case "ask":
      return "ask-always";
    case "deny":
      return "deny";
  }
}
