/** Settings → Rules & records: the always-allow/deny rules, and the ask-once answers of the open chat. */
import * as api from "../../api";
import { chatTitle } from "../../format";
import { t } from "../../i18n";
import { ruleActionKey, ruleActionTone } from "../../policies";
import type { ChatId, ChatRow } from "../../types";
import { RECORDS, recordsQuery, RULES, rulesQuery } from "../../queries";
import { invalidate } from "../../serverState";
import { useAction } from "../hooks";
import { useServerState } from "../useServerState";
import { ErrorState, LoadStatus } from "../States";

export function RulesTab({ chats, currentChat }: { chats: ChatRow[]; currentChat: ChatId | null }) {
  const rulesLoad = useServerState(rulesQuery);
  const recordsLoad = useServerState(currentChat === null ? null : recordsQuery(currentChat));
  const rules = rulesLoad.data;
  const records = recordsLoad.data;
  const revoking = useAction();
  /** Revokes a rule or a record, then shows both lists as they are now. */
  const revoke = (action: () => Promise<unknown>) =>
    void revoking.run(async () => {
      await action();
      await Promise.all([invalidate(RULES), invalidate(RECORDS)]);
    });
  const titleOf = (id: ChatId) => {
    const chat = chats.find((c) => c.id === id);
    return chat ? chatTitle(chat) : `#${id}`;
  };
  const current = currentChat !== null ? chats.find((c) => c.id === currentChat) : undefined;

  return (
    <div class="settings-section">
      {revoking.error ? <ErrorState message={revoking.error} /> : null}
      <section class="card">
        <h3 class="card-title">{t("rules.title")}</h3>
        <LoadStatus load={rulesLoad} />
        {rules && rules.length === 0 ? <p class="empty-note">{t("rules.none")}</p> : null}
        {rules && rules.length > 0 ? (
          <table class="tools">
            <thead>
              <tr>
                <th>{t("rules.tool")}</th>
                <th>{t("rules.pattern")}</th>
                <th>{t("rules.action")}</th>
                <th>{t("rules.scope")}</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {rules.map((r) => (
                <tr key={r.id} data-rule={r.id}>
                  <td>
                    <code>{r.tool}</code>
                  </td>
                  <td>{r.pattern ? <code>{r.pattern}</code> : <span class="muted">{t("rules.anyArgs")}</span>}</td>
                  <td>
                    <span class={`pill pill--${ruleActionTone(r.action)}`}>{t(ruleActionKey(r.action))}</span>
                  </td>
                  <td>{r.scope.type === "global" ? t("rules.global") : t("rules.chat", { title: titleOf(r.scope.chat) })}</td>
                  <td class="right">
                    <button type="button" class="btn btn--small" onClick={() => revoke(() => api.revokeRule(r.id))}>
                      {t("common.revoke")}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </section>
      <section class="card">
        <h3 class="card-title">
          {t("records.title")} {current ? <span class="muted">— {chatTitle(current)}</span> : null}
        </h3>
        {currentChat === null ? <p class="empty-note">{t("records.noChat")}</p> : null}
        <LoadStatus load={recordsLoad} />
        {records && records.length === 0 ? <p class="empty-note">{t("records.none")}</p> : null}
        {records && records.length > 0 ? (
          <table class="tools">
            <tbody>
              {records.map((r) => (
                <tr key={r.tool + r.argsHash}>
                  <td>
                    <code>{r.tool}</code>
                  </td>
                  <td class="mono small record-args">{typeof r.args === "string" ? r.args : JSON.stringify(r.args)}</td>
                  <td class="small record-workspace" data-role="record-workspace">
                    {r.workspace !== null ? t("records.workspace", { folder: r.workspace }) : <span class="muted">{t("records.noFolder")}</span>}
                  </td>
                  <td>
                    <span class={`pill pill--${r.allowed ? "auto" : "deny"}`}>{r.allowed ? t("records.allowed") : t("records.denied")}</span>
                  </td>
                  <td class="right">
                    <button type="button" class="btn btn--small" onClick={() => revoke(() => api.revokeRecord(r.chat, r.tool, r.argsHash))}>
                      {t("common.revoke")}
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        ) : null}
      </section>
    </div>
  );
}
