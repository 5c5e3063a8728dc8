/** The "Always allow" panel of an execution card: the rule being written, in plain words, and which past calls it would have allowed. */
import { useState } from "preact/hooks";
import { alwaysAllowDecision } from "../approvals";
import { t } from "../i18n";
import { ruleCoverageQuery } from "../queries";
import { everyCallChoice, everyCallWords, ruleWords } from "../ruleWords";
import type { ChatId, ExecutionDecision, ExecutionRequest, RuleGrant, RuleScopeChoice } from "../types";
import { RevealedLine } from "./ApprovalParts";
import { useFocusOnOpen } from "./ApprovalEditor";
import { PhraseView } from "./Payload";
import { useServerState } from "./useServerState";

/** Which past calls of the tool-chain log the rule being written would have allowed (F-85). */
function RuleCoverageView(props: { chat: ChatId; tool: string; pattern: string | null; scope: RuleScopeChoice }) {
  const { chat, tool, pattern, scope } = props;
  const coverage = useServerState(ruleCoverageQuery(chat, tool, pattern, scope === "thisChat" ? { type: "chat", chat } : { type: "global" }), {
    keepOnChange: true,
  });
  const c = coverage.data;
  if (!c) return null;
  return (
    <div class="rule-coverage" data-role="rule-coverage" aria-live="polite">
      <div class="section-label">{t("coverage.title")}</div>
      {c.examined === 0 ? (
        <p class="muted">{t("coverage.never", { tool })}</p>
      ) : c.coveredCount === 0 ? (
        <p class="muted">{t("coverage.none", { n: c.examined, tool })}</p>
      ) : (
        <>
          <p>{t("coverage.some", { count: c.coveredCount, n: c.examined, tool })}</p>
          <ul class="coverage-list">
            {c.covered.map((call) => (
              <li key={`${call.chat}-${call.seq}`} class="mono" data-covered={call.seq}>
                <RevealedLine text={call.args} />
              </li>
            ))}
          </ul>
        </>
      )}
    </div>
  );
}

/**
 * The "Always allow" panel: where the rule applies, and what it allows — calls matching a
 * pattern (the default, said in plain words as it is typed), or every call of the tool, chosen
 * explicitly and with a warning. An empty pattern cannot create a rule.
 */
export function AlwaysAllowPanel(props: {
  id: string;
  chat: ChatId;
  tool: string;
  request: ExecutionRequest;
  busy: boolean;
  onCreate: (decision: ExecutionDecision) => void;
  onCancel: () => void;
}) {
  const { id, tool, request, busy } = props;
  const [scope, setScope] = useState<RuleScopeChoice>("thisChat");
  const [grant, setGrant] = useState<RuleGrant["type"]>("matching");
  const [pattern, setPattern] = useState(request.suggestedPattern ?? "");
  const words = ruleWords(request.ruleSubject, tool, pattern, scope);
  const decision = alwaysAllowDecision(scope, grant, pattern);
  const wordsId = `rule-words-${id}`;
  const first = useFocusOnOpen<HTMLInputElement>();
  return (
    <div class="approval-panel">
      <fieldset class="scope-choice">
        <legend>{t("approval.scopeQuestion")}</legend>
        <label>
          <input ref={first} type="radio" name={`scope-${id}`} checked={scope === "thisChat"} onChange={() => setScope("thisChat")} />{" "}
          {t("approval.scopeThisChat")}
        </label>
        <label>
          <input type="radio" name={`scope-${id}`} checked={scope === "allChats"} onChange={() => setScope("allChats")} />{" "}
          {t("approval.scopeAllChats")}
        </label>
      </fieldset>
      <fieldset class="grant-choice">
        <legend>{t("approval.grantQuestion")}</legend>
        <label>
          <input type="radio" name={`grant-${id}`} checked={grant === "matching"} onChange={() => setGrant("matching")} data-role="grant-matching" />{" "}
          {t("approval.grantMatching")}
        </label>
        {grant === "matching" ? (
          <div class="grant-detail">
            <label class="field">
              <span>{t("approval.pattern")}</span>
              <input
                class="mono"
                value={pattern}
                onInput={(e) => setPattern(e.currentTarget.value)}
                data-role="pattern"
                aria-describedby={wordsId}
                aria-invalid={words.status !== "ok"}
              />
            </label>
            <p id={wordsId} class={`rule-words rule-words--${words.status}`} aria-live="polite" data-role="rule-words">
              <PhraseView phrase={words.sentence} />
            </p>
          </div>
        ) : null}
        <label>
          <input type="radio" name={`grant-${id}`} checked={grant === "everyCall"} onChange={() => setGrant("everyCall")} data-role="grant-every" />{" "}
          <PhraseView phrase={everyCallChoice(tool)} />
        </label>
        {grant === "everyCall" ? (
          <p class="rule-warning" data-role="every-call-warning">
            <PhraseView phrase={everyCallWords(tool, scope)} />
          </p>
        ) : null}
      </fieldset>
      {request.destructive ? (
        <p class="rule-warning rule-warning--destructive" data-role="destructive-warning">
          {t("approval.destructiveWarning", { tool })}
        </p>
      ) : null}
      {grant === "everyCall" || pattern.trim() ? (
        <RuleCoverageView chat={props.chat} tool={tool} pattern={grant === "everyCall" ? null : pattern.trim()} scope={scope} />
      ) : null}
      <div class="row">
        <button type="button" class="btn btn--primary" disabled={busy || !decision} onClick={() => decision && props.onCreate(decision)}>
          {t("approval.createRule")}
        </button>
        <button type="button" class="btn" onClick={props.onCancel}>
          {t("common.cancel")}
        </button>
      </div>
    </div>
  );
}
