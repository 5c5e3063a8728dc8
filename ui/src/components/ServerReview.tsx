/**
 * The first-sight review of an MCP server (issue 45): what it says to the model — its
 * instructions, every tool's description — and what each tool claims to do, on one screen,
 * with what the scan flags beside the text it was found in. Until the user confirms it here,
 * what the server says counts as untrusted in every chat that offers its tools, and what its
 * tools claim to do is not taken at its word.
 */
import { useEffect, useState } from "preact/hooks";
import "./ServerReview.css";
import * as api from "../api";
import { type Key, t } from "../i18n";
import { effectsWords } from "../provenance";
import { reveal } from "../reveal";
import type { FindingKind, ReviewedTool, ServerFinding, ServerReview, ToolEffects } from "../types";
import { ConfirmRow } from "./ConfirmRow";
import { useAction, useLoad } from "./hooks";
import { RevealedText } from "./Payload";
import { ErrorState, Loading } from "./States";

const FINDING_KEYS: Record<FindingKind, Key> = {
  hiddenText: "review.finding.hiddenText",
  addressedToModel: "review.finding.addressedToModel",
  shadowing: "review.finding.shadowing",
  asksForSecrets: "review.finding.asksForSecrets",
  longerThanItsSchema: "review.finding.longerThanItsSchema",
};

const EFFECT_KEYS: Array<[keyof ToolEffects, Key]> = [
  ["writes", "effects.writes"],
  ["executes", "effects.executes"],
  ["sendsOut", "effects.sendsOut"],
  ["irreversible", "effects.irreversible"],
  ["readsPrivate", "effects.readsPrivate"],
];

function Findings({ findings }: { findings: ServerFinding[] }) {
  if (findings.length === 0) return null;
  return (
    <ul class="review-findings" data-role="review-findings">
      {findings.map((f, i) => (
        <li key={i} class="review-finding" data-finding={f.kind}>
          <strong>{t(FINDING_KEYS[f.kind])}</strong> <code class="wrap-anywhere">{f.excerpt}</code>
        </li>
      ))}
    </ul>
  );
}

/** Text a server wrote, with hidden characters shown for what they are. */
function ServerText({ text }: { text: string }) {
  return (
    <p class="small pre-wrap review-text">
      <RevealedText segments={reveal(text).segments} />
    </p>
  );
}

function ToolRow(props: { tool: ReviewedTool; findings: ServerFinding[]; effects: ToolEffects; onEffects: (e: ToolEffects) => void }) {
  const { tool, effects } = props;
  return (
    <li class="review-tool" data-tool={tool.remote}>
      <div>
        <code>{tool.remote}</code> {tool.title ? <span class="muted">— {tool.title}</span> : null}
      </div>
      <ServerText text={tool.description || t("review.noDescription")} />
      <Findings findings={props.findings} />
      <p class="muted small">{t("review.declared", { effects: effectsWords(tool.declared).join(", ") })}</p>
      <fieldset class="review-effects">
        <legend class="small">{t("review.effectsLegend")}</legend>
        {EFFECT_KEYS.map(([k, label]) => (
          <label key={k} class="small">
            <input
              type="checkbox"
              checked={effects[k]}
              data-effect={k}
              onChange={(e) => props.onEffects({ ...effects, [k]: e.currentTarget.checked })}
            />{" "}
            {t(label)}
          </label>
        ))}
      </fieldset>
    </li>
  );
}

/** The review of `server`; `onConfirmed` after the user confirmed it. */
export function ServerReviewView(props: { server: string; onConfirmed: () => void }) {
  const loaded = useLoad(() => api.mcpServerReview(props.server), [props.server]);
  const action = useAction();
  const [effects, setEffects] = useState<Record<string, ToolEffects>>({});
  const review: ServerReview | null = loaded.data ?? null;
  useEffect(() => {
    if (review) setEffects(Object.fromEntries(review.tools.map((tool) => [tool.name, tool.confirmed ?? tool.declared])));
  }, [review]);
  if (loaded.error !== null) return <ErrorState message={loaded.error} onRetry={() => void loaded.reload()} />;
  if (!review) return <Loading />;
  const confirm = async () => {
    if (await action.run(() => api.confirmMcpServer(review.server, review.fingerprint, effects))) props.onConfirmed();
    else await loaded.reload();
  };
  const of = (tool: string | null) => review.findings.filter((f) => (f.tool ?? null) === tool);
  return (
    <div class="server-review" data-role="server-review" data-state={review.state}>
      <p class="server-review-why">
        {t(review.state === "changed" ? "review.whyChanged" : review.state === "confirmed" ? "review.whyConfirmed" : "review.whyNew", {
          server: review.server,
        })}
      </p>
      {review.findings.length ? (
        <p class="inline-error" role="alert" data-role="review-flagged">
          {t("review.flagged", { count: review.findings.length })}
        </p>
      ) : (
        <p class="muted small">{t("review.nothingFlagged")}</p>
      )}
      <section>
        <div class="section-label">{t("review.instructions")}</div>
        {review.instructions ? <ServerText text={review.instructions} /> : <p class="muted small">{t("review.noInstructions")}</p>}
        <Findings findings={of(null)} />
      </section>
      <section>
        <div class="section-label">{t("review.tools", { count: review.tools.length })}</div>
        <ul class="review-tools">
          {review.tools.map((tool) => (
            <ToolRow
              key={tool.name}
              tool={tool}
              findings={of(tool.remote)}
              effects={effects[tool.name] ?? tool.declared}
              onEffects={(e) => setEffects({ ...effects, [tool.name]: e })}
            />
          ))}
        </ul>
      </section>
      <ConfirmRow
        error={action.error}
        busy={action.busy}
        label={t("review.confirm")}
        hint={t("review.confirmHint")}
        role="confirm-review"
        primary
        onConfirm={() => void confirm()}
      />
    </div>
  );
}
