/**
 * A remote MCP server's sign-in (SPEC §11), in its card in Settings → MCP servers: whether the
 * user is signed in and with which authorization server, or that the server wants a sign-in
 * (first time, or again after it expired or was revoked), or that the browser is open and
 * Tollgate waits for it — with Sign in, Cancel and Sign out. The token itself never reaches the
 * window.
 */
import * as api from "../../api";
import { relativeTime } from "../../format";
import { t } from "../../i18n";
import type { McpServerView } from "../../types";
import { useAction } from "../hooks";

export function SignInLine(props: { server: McpServerView; onChanged: () => void }) {
  const { config, state, signIn, signingIn } = props.server;
  const action = useAction();
  const name = config.name;
  if (config.transport.type !== "http") return null;
  const needs = state.status.state === "needsSignIn" ? state.status : null;
  if (!signIn && !needs && !signingIn && !action.error) return null;
  const run = async (step: () => Promise<unknown>) => {
    if (await action.run(step)) props.onChanged();
  };
  return (
    <div class="mcp-sign-in" data-role="mcp-sign-in" aria-live="polite">
      {signingIn ? (
        <>
          <span class="spinner spinner--small" aria-hidden="true" />
          <span class="grow">{t("signIn.waiting")}</span>
          <button type="button" class="btn btn--small" onClick={() => void run(() => api.cancelMcpSignIn(name))} data-role="sign-in-cancel">
            {t("common.cancel")}
          </button>
        </>
      ) : needs ? (
        <>
          <span class="grow" data-role="sign-in-needed">
            {needs.expired ? t("signIn.expired") : t("signIn.needed")}
          </span>
          <button
            type="button"
            class="btn btn--primary btn--small"
            disabled={action.busy}
            onClick={() => void run(() => api.signInMcpServer(name))}
            data-role="sign-in"
          >
            {needs.expired ? t("signIn.again") : t("signIn.signIn")}
          </button>
        </>
      ) : signIn ? (
        <>
          <span class="grow" data-role="signed-in">
            {t("signIn.signedIn", { issuer: signIn.issuer })}
            {signIn.scopes.length > 0 ? <span class="muted"> · {t("signIn.scopes", { scopes: signIn.scopes.join(" ") })}</span> : null}
            <span class="muted"> · {t("signIn.since", { when: relativeTime(signIn.signedInAt) })}</span>
          </span>
          <button
            type="button"
            class="btn btn--small"
            disabled={action.busy}
            onClick={() => void run(() => api.signOutMcpServer(name))}
            data-role="sign-out"
          >
            {t("signIn.signOut")}
          </button>
        </>
      ) : null}
      {action.error ? (
        <p class="inline-error" role="alert">
          {action.error}
        </p>
      ) : null}
    </div>
  );
}
