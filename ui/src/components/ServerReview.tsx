/**
 * The first-sight review of an MCP server (SPEC §12): what it says to the model — its
 * instructions, every tool's description — and what each tool claims to do, on one screen,
 * with what the scan flags beside the text it was found in. Until the user confirms it here,
 * what the server says counts as untrusted in every chat that offers its tools, and what its
 * tools claim to do is not taken at its word.
 */
import { memo } from "preact/compat";
import { useCallback, useMemo, useState } from "preact/hooks";
import "./ServerReview.css";
import * as api from "../api";
import { type Key, t } from "../i18n";
import { FINDING_KEYS } from "../flagged";
import { effectsWords } from "../provenance";
import { reveal } from "../reveal";
import type { FindingKind, ReviewedTool, ServerFinding, ServerReview, ToolEffects } from "../types";
import { ConfirmRow } from "./ConfirmRow";
import { type Load, useAction, useProgressive } from "./hooks";
import { RevealedText } from "./Payload";
import { ErrorState, Loading } from "./States";

/** Tools rendered with the review's first frame: more than its first screen holds. */
const FIRST_TOOLS = 8;
/**
 * Tools added after each painted frame until the list is whole. Large: in WebKit each frame that
 * changes the settings pane costs about the same however much changed (its repaint), so the
 * rest comes in one frame for most servers.
 */
const TOOLS_PER_FRAME = 100;

const EFFECT_KEYS: Array<[keyof ToolEffects, Key]> = [
  ["writes", "effects.writes"],
  ["executes", "effects.executes"],
  ["sendsOut", "effects.sendsOut"],
  ["irreversible", "effects.irreversible"],
  ["readsPrivate", "effects.readsPrivate"],
];

/** A finding of the scan and its place in the review's list (what an acknowledgement names). */
interface Numbered {
  at: number;
  finding: ServerFinding;
}

/**
 * The scan's findings beside the text they were found in, each with its own "I read this": a
 * review with findings is confirmed only once every one was acknowledged, never in one click.
 */
function Findings(props: { findings: Numbered[]; acked: ReadonlySet<number>; onAck: (at: number, on: boolean) => void }) {
  if (props.findings.length === 0) return null;
  return (
    <ul class="review-findings" data-role="review-findings">
      {props.findings.map(({ at, finding: f }) => (
        <li key={at} class="review-finding" data-finding={f.kind}>
          <strong>{t(FINDING_KEYS[f.kind])}</strong> <code class="wrap-anywhere">{f.excerpt}</code>
          <label class="small review-ack">
            <input type="checkbox" checked={props.acked.has(at)} data-role="ack-finding" onChange={(e) => props.onAck(at, e.currentTarget.checked)} />{" "}
            {t("review.ackFinding")}
          </label>
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

/**
 * What a call of the tool may do: the server's claim (or what the user set) in one line, and
 * the checkboxes to change it only when asked for — a server with a hundred tools opens fast
 * and reads as a list, not a form.
 */
function EffectsChoice(props: { tool: ReviewedTool; effects: ToolEffects | null; onEffects: (e: ToolEffects) => void }) {
  const { tool } = props;
  const [open, setOpen] = useState(false);
  // Until the user chooses, the form starts from the claim; nothing is the user's until then.
  const effects = props.effects ?? tool.declared;
  return (
    <div class="review-effects-line">
      <p class="muted small">
        {t("review.declared", { effects: effectsWords(tool.declared).join(", ") })}{" "}
        {props.effects ? (
          <span class="tag" data-role="effects-set">
            {t("review.effectsSet", { effects: effectsWords(props.effects).join(", ") })}
          </span>
        ) : (
          <span class="tag tag--warn" data-role="effects-claimed">
            {t("review.onlyClaimed")}
          </span>
        )}{" "}
        {props.effects ? null : (
          <button type="button" class="btn btn--ghost btn--small" onClick={() => props.onEffects(tool.declared)} data-role="accept-claim">
            {t("review.acceptClaim")}
          </button>
        )}
        {open ? null : (
          <button type="button" class="btn btn--ghost btn--small" onClick={() => setOpen(true)} data-role="change-effects">
            {t("review.changeEffects")}
          </button>
        )}
      </p>
      {open ? (
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
      ) : null}
    </div>
  );
}

/**
 * One tool of the review. Memoised: the list fills in a batch per frame (and a change of one
 * tool's effects re-renders the view), and rows already shown must not be rendered again.
 */
const ToolRow = memo(function ToolRow(props: {
  tool: ReviewedTool;
  findings: Numbered[];
  acked: ReadonlySet<number>;
  onAck: (at: number, on: boolean) => void;
  effects: ToolEffects | null;
  onEffects: (name: string, e: ToolEffects) => void;
}) {
  const { tool, onEffects } = props;
  return (
    <li class="review-tool" data-tool={tool.remote}>
      <div>
        <code>{tool.remote}</code> {tool.title ? <span class="muted">— {tool.title}</span> : null}
      </div>
      <ServerText text={tool.description || t("review.noDescription")} />
      <Findings findings={props.findings} acked={props.acked} onAck={props.onAck} />
      <EffectsChoice tool={tool} effects={props.effects} onEffects={(e) => onEffects(tool.name, e)} />
    </li>
  );
});

const NO_FINDINGS: Numbered[] = [];

/** The scan's findings by the tool they were found in (`null`: the server's instructions). */
function findingsByTool(findings: ServerFinding[]): Map<string | null, Numbered[]> {
  const by = new Map<string | null, Numbered[]>();
  findings.forEach((finding, at) => {
    const key = finding.tool ?? null;
    const list = by.get(key);
    if (list) list.push({ at, finding });
    else by.set(key, [{ at, finding }]);
  });
  return by;
}

/**
 * A server's review as `loaded` holds it (the server's card loads it before it is opened, so it
 * opens at once); `onConfirmed` after the user confirmed it.
 */
/** The findings whose text stays untrusted after any confirmation (`FindingKind::steers`). */
const STEERS: readonly FindingKind[] = ["hiddenText", "addressedToModel", "shadowing", "asksForSecrets"];

export function ServerReviewView(props: { loaded: Load<ServerReview>; onConfirmed: () => void }) {
  const { loaded } = props;
  const action = useAction();
  // Only what the user chose, tool by tool; every other tool keeps what the user chose before,
  // or stays a claim (judged as able to do anything, its results private).
  const [changes, setChanges] = useState<Record<string, ToolEffects>>({});
  const [acked, setAcked] = useState<ReadonlySet<number>>(new Set());
  const onAck = useCallback(
    (at: number, on: boolean) =>
      setAcked((a) => {
        const next = new Set(a);
        if (on) next.add(at);
        else next.delete(at);
        return next;
      }),
    [],
  );
  const review: ServerReview | null = loaded.data ?? null;
  // The first screen of tools at once, the rest behind it a batch per frame: a server with a
  // hundred tools opens at once (SPEC §12's target: 100 ms) and is whole a few frames later.
  const shown = useProgressive(review?.tools.length ?? 0, FIRST_TOOLS, TOOLS_PER_FRAME);
  const byTool = useMemo(() => findingsByTool(review?.findings ?? []), [review]);
  const setEffects = useCallback((name: string, e: ToolEffects) => setChanges((c) => ({ ...c, [name]: e })), []);
  if (loaded.error !== null) return <ErrorState message={loaded.error} onRetry={() => void loaded.reload()} />;
  if (!review) return <Loading />;
  const effectsOf = (tool: ReviewedTool) => changes[tool.name] ?? tool.confirmed ?? null;
  const unread = review.findings.length - review.findings.filter((_, at) => acked.has(at)).length;
  const confirm = async () => {
    if (unread > 0) return;
    // The texts are confirmed; effects only where the user chose them.
    if (await action.run(() => api.confirmMcpServer(review.server, review.fingerprint, changes))) props.onConfirmed();
    else await loaded.reload();
  };
  const of = (tool: string | null) => byTool.get(tool) ?? NO_FINDINGS;
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
        <Findings findings={of(null)} acked={acked} onAck={onAck} />
      </section>
      <section>
        <div class="section-label">{t("review.tools", { count: review.tools.length })}</div>
        <ul class="review-tools" data-complete={shown === review.tools.length}>
          {review.tools.slice(0, shown).map((tool) => (
            <ToolRow
              key={tool.name}
              tool={tool}
              findings={of(tool.remote)}
              acked={acked}
              onAck={onAck}
              effects={effectsOf(tool)}
              onEffects={setEffects}
            />
          ))}
        </ul>
      </section>
      <ConfirmRow
        error={action.error}
        busy={action.busy}
        disabled={unread > 0}
        label={t("review.confirm")}
        hint={
          unread > 0
            ? t("review.ackFirst", { count: unread })
            : review.findings.some((f) => STEERS.includes(f.kind))
              ? t("review.confirmHintSteers")
              : t("review.confirmHint")
        }
        role="confirm-review"
        primary
        onConfirm={() => void confirm()}
      />
    </div>
  );
}
