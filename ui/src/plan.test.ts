import { describe, expect, it } from "vitest";
import { approveDecision, keepAll, keptPlan, timeChoices, unchanged } from "./plan";
import type { PlanProposal } from "./types";

const proposal: PlanProposal = {
  steps: [
    { purpose: "read the bill", tool: "read_file", maxCalls: 1, pattern: "bill.txt", targets: [] },
    { purpose: "pay it", tool: "pay_bill", maxCalls: 1, targets: ["DE89370400440532013000", "bank.example"] },
  ],
};

describe("a plan on its card", () => {
  it("approves the plan as shown when nothing changed", () => {
    const kept = keepAll(proposal);
    expect(unchanged(proposal, kept)).toBe(true);
    expect(approveDecision(proposal, kept)).toEqual({ type: "allowOnce" });
  });

  it("sends what the user kept: a step unticked, a target removed, a shorter time", () => {
    const kept = keepAll(proposal);
    kept.steps[0] = { kept: false, targets: [] };
    kept.steps[1] = { kept: true, targets: ["DE89370400440532013000"] };
    kept.minutes = 15;
    expect(unchanged(proposal, kept)).toBe(false);
    expect(keptPlan(proposal, kept)).toEqual({
      steps: [{ purpose: "pay it", tool: "pay_bill", maxCalls: 1, targets: ["DE89370400440532013000"] }],
      minutes: 15,
    });
    expect(approveDecision(proposal, kept)).toEqual({ type: "editAndAllow", arguments: keptPlan(proposal, kept) });
  });

  it("offers only time boxes no longer than the plan asked for", () => {
    expect(timeChoices(proposal)).toEqual([null, 15, 60]);
    expect(timeChoices({ ...proposal, minutes: 30 })).toEqual([15, 30]);
    expect(timeChoices({ ...proposal, minutes: 10 })).toEqual([10]);
  });
});
