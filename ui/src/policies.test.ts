import { describe, expect, it } from "vitest";
import { en, t } from "./i18n";
import { EXECUTION_POLICIES, executionPolicyKey, RESULT_POLICIES, resultPolicyKey, ruleActionKey, ruleActionTone } from "./policies";

describe("the policy lists", () => {
  it("hold every policy once, least restrictive first", () => {
    expect(EXECUTION_POLICIES).toEqual(["auto", "ask-once", "ask-always", "deny"]);
    expect(RESULT_POLICIES).toEqual(["never", "on-error", "always"]);
  });

  it("name each policy and rule action with a key the dictionary has", () => {
    const keys = [
      ...EXECUTION_POLICIES.map(executionPolicyKey),
      ...RESULT_POLICIES.map(resultPolicyKey),
      ruleActionKey("allow"),
      ruleActionKey("ask"),
      ruleActionKey("deny"),
    ];
    for (const key of keys) expect(Object.keys(en)).toContain(key);
    expect(t(executionPolicyKey("ask-once"))).toBe("Ask once");
    expect(t(resultPolicyKey("on-error"))).toBe("On error");
  });

  it("shows a rule in the colours of the policy it acts like", () => {
    expect([ruleActionTone("allow"), ruleActionTone("ask"), ruleActionTone("deny")]).toEqual(["auto", "ask-always", "deny"]);
  });
});
