/**
 * The card of a pending approval, picked by what is asked: a call to run (ExecutionCard.tsx), a
 * result to pass on (ResultCard.tsx) or a task's plan (PlanCard.tsx). The question card lives in
 * QuestionCard.tsx and is re-exported here, where the chat's messages import both from.
 */
import type { ApprovalCardProps } from "./ApprovalParts";
import { ExecutionCard } from "./ExecutionCard";
import { PlanCard } from "./PlanCard";
import { ResultCard } from "./ResultCard";

export type { ApprovalCardProps as Props } from "./ApprovalParts";
export { QuestionCard } from "./QuestionCard";

export function ApprovalCard(props: ApprovalCardProps) {
  const request = props.approval.request;
  if (request.kind === "result") return <ResultCard {...props} request={request} />;
  // A task's plan (F-98) has a card of its own: a checklist, not arguments.
  if (request.reason.type === "plan") return <PlanCard {...props} shown={request.reason.shown} />;
  return <ExecutionCard {...props} request={request} />;
}
