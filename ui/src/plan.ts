/**
 * A task's plan on its card (F-98): what the user keeps of what the model proposed. The card
 * only narrows — a step unticked, a target removed, a shorter time — and the decision it sends
 * is the plan as shown (`allowOnce`) or the kept plan as the call's arguments (`editAndAllow`),
 * which the backend checks is a narrowing of what was shown.
 */
import type { ExecutionDecision, PlanProposal, PlanStep, TaskState } from "./types";

/** What the user has kept so far: per step, whether it is kept and which of its targets. */
export interface Kept {
  steps: { kept: boolean; targets: string[] }[];
  /** Minutes the grant lasts; `null`: until the answer ends. */
  minutes: number | null;
}

/** Everything kept, as shown. */
export function keepAll(proposal: PlanProposal): Kept {
  return {
    steps: proposal.steps.map((s) => ({ kept: true, targets: [...s.targets] })),
    minutes: proposal.minutes ?? null,
  };
}

/** The time boxes the card offers: only as long as the plan asked for, or shorter. */
export function timeChoices(proposal: PlanProposal): (number | null)[] {
  const asked = proposal.minutes ?? null;
  const boxes = [15, 60].filter((m) => asked === null || m < asked);
  return asked === null ? [null, ...boxes] : [...boxes, asked];
}

/** Whether the user changed nothing. */
export function unchanged(proposal: PlanProposal, kept: Kept): boolean {
  return (
    kept.minutes === (proposal.minutes ?? null) && kept.steps.every((k, i) => k.kept && k.targets.length === (proposal.steps[i]?.targets.length ?? 0))
  );
}

/** The plan the user kept, in the shape of `propose_plan`'s arguments. */
export function keptPlan(proposal: PlanProposal, kept: Kept): PlanProposal {
  const steps: PlanStep[] = proposal.steps.flatMap((s, i) => {
    const k = kept.steps[i];
    return k?.kept ? [{ ...s, targets: s.targets.filter((t) => k.targets.includes(t)) }] : [];
  });
  return kept.minutes === null ? { steps } : { steps, minutes: kept.minutes };
}

/** The decision that approves what the user kept. */
export function approveDecision(proposal: PlanProposal, kept: Kept): ExecutionDecision {
  if (unchanged(proposal, kept)) return { type: "allowOnce" };
  return { type: "editAndAllow", arguments: keptPlan(proposal, kept) };
}

/** How many steps are kept. */
export function keptCount(kept: Kept): number {
  return kept.steps.filter((s) => s.kept).length;
}

/** One step of the grant in force as the chat's header shows it (F-98). */
export interface StepProgress {
  purpose: string;
  tool: string;
  /** The calls it has made, by their number in the tool-chain log. */
  made: number[];
  maxCalls: number;
  /** All its calls are made. */
  done: boolean;
}

/** The grant in force, step by step, and how many calls it has left in all. */
export function taskProgress(task: TaskState): { steps: StepProgress[]; left: number } {
  const steps = task.grant.steps.map((s, i) => {
    const made = task.calls[i] ?? [];
    return { purpose: s.purpose, tool: s.tool, made, maxCalls: s.maxCalls, done: made.length >= s.maxCalls };
  });
  const left = steps.reduce((n, s) => n + Math.max(0, s.maxCalls - s.made.length), 0);
  return { steps, left };
}
