/**
 * The provenance gate in the window (F-82…F-85): the note on a card it holds (why, in one line,
 * and the stretches of the arguments that came from untrusted content or carry private data
 * out), the chat's exposure strip under its header, and the autonomy figures.
 */
import { useState } from "preact/hooks";
import * as api from "../api";
import { decidedByKey } from "../format";
import { t } from "../i18n";
import { effectsWords, guardWhy, keyOf, markedArguments, sourceText, trifecta, trustKeyText, wayOutText } from "../provenance";
import { reveal } from "../reveal";
import type { Autonomy, ChatId, ExposureView, GuardNote, JsonValue, Source, TrustKey } from "../types";
import { exposureKey, exposureQuery } from "../queries";
import { invalidate } from "../serverState";
import { useAction, useLoad } from "./hooks";
import { useServerState } from "./useServerState";
import { RevealedText } from "./Payload";

/** The gate's note on an execution card: why it asks, what the call may do, where its
 * arguments came from. */
export function GuardNoteView({ note, args }: { note: GuardNote; args: JsonValue }) {
  const marked = markedArguments(args, note.spans);
  const by = note.wouldAllow ? decidedByKey(note.wouldAllow) : null;
  return (
    <div class="guard-note" data-role="guard-note">
      <p class="guard-why" data-role="guard-why">
        {guardWhy(note)}
      </p>
      <p class="guard-effects muted">{t("guard.callMay", { effects: effectsWords(note.effects).join(", ") })}</p>
      {by ? <p class="guard-would muted">{t("guard.wouldAllow", { by: t(by) })}</p> : null}
      {marked.length ? (
        <div class="guard-spans" data-role="guard-spans">
          <div class="section-label">
            {t("guard.spansTitle")}{" "}
            <span class="guard-legend">
              {note.spans.some((s) => s.kind === "untrusted") ? <mark class="span-untrusted">{t("guard.legendUntrusted")}</mark> : null}{" "}
              {note.spans.some((s) => s.kind === "private") ? <mark class="span-private">{t("guard.legendPrivate")}</mark> : null}
            </span>
          </div>
          {marked.map((m) => (
            <div key={m.pointer} class="guard-arg">
              <span class="guard-arg-name mono">{m.label}</span>
              <pre class="guard-arg-text mono">
                {m.pieces.map((p, i) =>
                  p.kind && p.source ? (
                    <mark
                      key={i}
                      class={`span-${p.kind}`}
                      data-span={p.kind}
                      title={t(p.kind === "untrusted" ? "guard.spanUntrusted" : "guard.spanPrivate", { source: sourceText(p.source) })}
                    >
                      <RevealedText segments={reveal(p.text).segments} />
                    </mark>
                  ) : (
                    <RevealedText key={i} segments={reveal(p.text).segments} />
                  ),
                )}
              </pre>
            </div>
          ))}
        </div>
      ) : null}
    </div>
  );
}

/** The buttons an execution card held by the gate offers: trust a source for this chat and allow. */
export function EndorseButtons(props: { note: GuardNote; busy: boolean; onEndorse: (sources: TrustKey[]) => void }) {
  const keys = props.note.endorsable.slice(0, 3);
  if (keys.length === 0) return null;
  return (
    <div class="approval-actions guard-endorse" data-role="endorse">
      {keys.map((k) => (
        <button key={trustKeyText(k)} type="button" class="btn" disabled={props.busy} onClick={() => props.onEndorse([k])} data-role="endorse-one">
          {t("approval.endorse", { source: trustKeyText(k) })}
        </button>
      ))}
      <small class="muted">{t("guard.endorseHint")}</small>
    </div>
  );
}

/** A list of sources in one line: the first, and how many more. */
function firstAndMore(list: Source[], count: number): { source: string; more: string } {
  const first = list[0];
  return {
    source: first ? sourceText(first) : "",
    more: count > 1 ? t("guard.andMore", { n: count - 1 }) : "",
  };
}

/** The autonomy figures, in one sentence. */
export function AutonomyLine({ figures }: { figures: Autonomy }) {
  const silent = figures.byPolicy + figures.byRule + figures.byRecord + figures.byPlan;
  if (figures.consequential === 0)
    return (
      <p class="muted" data-role="autonomy">
        {t("autonomy.none")}
      </p>
    );
  return (
    <p class="autonomy" data-role="autonomy">
      {t("autonomy.line", {
        silent,
        total: figures.consequential,
        rule: figures.byRule,
        record: figures.byRecord,
        plan: figures.byPlan,
        policy: figures.byPolicy,
        escalated: figures.escalated,
        endorsed: figures.endorsed,
      })}
    </p>
  );
}

/**
 * What the chat has read, under its header: untrusted content, private data and the ways out —
 * the three legs of the "lethal trifecta" — with one click to turn the ways out off. `version`
 * changes whenever something may have reached the model (a call ended, a turn ended, another
 * branch shown), and the strip reads the chat's exposure again.
 */
export function ExposureStrip({ chat, version }: { chat: ChatId; version: string }) {
  const exposure = useServerState(exposureQuery(chat, version), { keepOnChange: true });
  const [open, setOpen] = useState(false);
  const action = useAction();
  const view = exposure.data;
  if (!view) return null;
  const quiet = view.untrustedCount === 0 && view.privateCount === 0 && view.waysOut.length === 0 && !view.waysOutOff;
  if (quiet && view.endorsed.length === 0) return null;
  const change = (work: () => Promise<unknown>) =>
    void action.run(async () => {
      await work();
      await invalidate(exposureKey(chat));
    });
  const untrusted = firstAndMore(view.untrusted, view.untrustedCount);
  const secret = firstAndMore(view.private, view.privateCount);
  const all = trifecta(view);
  return (
    <div class={`exposure${all ? " exposure--trifecta" : ""}`} role="region" aria-label={t("exposure.label")} data-role="exposure">
      {!view.guard ? <p class="exposure-off">{t("exposure.guardOff")}</p> : null}
      <ul class="exposure-legs">
        <li class={`leg${view.untrustedCount ? " leg--on" : ""}`} data-leg="untrusted">
          {view.untrustedCount ? t("exposure.untrusted", untrusted) : t("exposure.clean")}
        </li>
        <li class={`leg${view.privateCount ? " leg--on" : ""}`} data-leg="private">
          {view.privateCount ? t("exposure.private", secret) : t("exposure.noPrivate")}
        </li>
        <li class={`leg${view.waysOut.length ? " leg--on" : ""}`} data-leg="ways-out">
          {view.waysOutOff ? t("exposure.waysOutOff") : view.waysOut.length ? waysOutLine(view) : t("exposure.noWaysOut")}
        </li>
      </ul>
      <div class="exposure-actions">
        {view.waysOut.length || view.waysOutOff ? (
          <button
            type="button"
            class={`btn btn--small${view.waysOutOff ? "" : " btn--danger-outline"}`}
            disabled={action.busy}
            onClick={() => change(() => api.setWaysOutOff(chat, !view.waysOutOff))}
            data-role="ways-out-toggle"
          >
            {view.waysOutOff ? t("exposure.turnOn") : t("exposure.turnOff")}
          </button>
        ) : null}
        <button type="button" class={`btn btn--ghost btn--small${open ? " is-pressed" : ""}`} aria-expanded={open} onClick={() => setOpen(!open)}>
          {t("exposure.details")}
        </button>
      </div>
      {all ? <p class="exposure-trifecta">{t("exposure.trifecta")}</p> : null}
      {action.error ? <p class="inline-error">{action.error}</p> : null}
      {open ? <ExposureDetails chat={chat} view={view} busy={action.busy} onChange={change} /> : null}
    </div>
  );
}

/** How many names of ways out the strip's one line shows; the rest are in its details. */
export const WAYS_OUT_SHOWN = 3;

/** The strip's ways out in one line (SPEC §12): the first few names and how many more. */
export function waysOutLine(view: ExposureView): string {
  const names = view.waysOut.map(wayOutText);
  if (names.length <= WAYS_OUT_SHOWN) return t("exposure.waysOut", { list: names.join(", ") });
  return t("exposure.waysOutMore", {
    count: names.length,
    list: names.slice(0, WAYS_OUT_SHOWN).join(", "),
    more: names.length - WAYS_OUT_SHOWN,
  });
}

/** Sources, one a line, in the strip's details. */
function SourceList({ sources }: { sources: Source[] }) {
  return (
    <ul class="exposure-list">
      {sources.map((s) => (
        <li key={JSON.stringify(s)} class="mono">
          {sourceText(s)}
        </li>
      ))}
    </ul>
  );
}

function ExposureDetails(props: { chat: ChatId; view: ExposureView; busy: boolean; onChange: (work: () => Promise<unknown>) => void }) {
  const { chat, view } = props;
  const figures = useLoad((_signal) => api.autonomy(chat), [chat, view]);
  const seen = new Set<string>();
  const trustable: TrustKey[] = [];
  for (const s of view.untrusted) {
    const key = keyOf(s);
    const id = JSON.stringify(key);
    if (!seen.has(id)) {
      seen.add(id);
      trustable.push(key);
    }
  }
  return (
    <div class="exposure-details" data-role="exposure-details">
      {view.untrusted.length ? (
        <>
          <div class="section-label">{t("exposure.allUntrusted")}</div>
          <SourceList sources={view.untrusted} />
          <div class="row">
            {trustable.map((k) => (
              <button
                key={JSON.stringify(k)}
                type="button"
                class="btn btn--small"
                disabled={props.busy}
                onClick={() => props.onChange(() => api.endorseSource(chat, k))}
                data-role="endorse-source"
              >
                {t("exposure.trust")}: {trustKeyText(k)}
              </button>
            ))}
          </div>
        </>
      ) : null}
      {view.private.length ? (
        <>
          <div class="section-label">{t("exposure.allPrivate")}</div>
          <SourceList sources={view.private} />
        </>
      ) : null}
      {view.waysOut.length > WAYS_OUT_SHOWN ? (
        <>
          <div class="section-label">{t("exposure.allWaysOut")}</div>
          <ul class="exposure-list" data-role="all-ways-out">
            {view.waysOut.map((w) => (
              <li key={JSON.stringify(w)} class="mono">
                {wayOutText(w)}
              </li>
            ))}
          </ul>
        </>
      ) : null}
      {view.endorsed.length ? (
        <>
          <div class="section-label">{t("exposure.trusted")}</div>
          <ul class="exposure-list">
            {view.endorsed.map((k) => (
              <li key={JSON.stringify(k)}>
                {trustKeyText(k)}{" "}
                <button
                  type="button"
                  class="btn btn--ghost btn--small"
                  disabled={props.busy}
                  onClick={() => props.onChange(() => api.unendorseSource(chat, k))}
                  data-role="unendorse-source"
                >
                  {t("exposure.untrust")}
                </button>
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <div class="section-label">{t("autonomy.title")}</div>
      {figures.data ? <AutonomyLine figures={figures.data} /> : null}
    </div>
  );
}
