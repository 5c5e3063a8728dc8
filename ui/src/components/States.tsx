import { t } from "../i18n";
import type { Load } from "./hooks";

/** A section that is still loading. */
export function Loading() {
  return (
    <div class="state" role="status">
      <span class="spinner" aria-hidden="true" /> {t("common.loading")}
    </div>
  );
}

/** A section that could not load, with the reason and, where it can be read again, a Retry button. */
export function ErrorState({ message, onRetry }: { message: string; onRetry?: () => void }) {
  return (
    <div class="state state--error" role="alert">
      {/* Every backend failure already says what failed, in the user's language (errorMessage). */}
      {message}
      {onRetry ? (
        <>
          {" "}
          <button type="button" class="btn btn--small" onClick={onRetry}>
            {t("common.retry")}
          </button>
        </>
      ) : null}
    </div>
  );
}

/**
 * The head of a section fed by `useServerState` (or `useLoad`): why the load failed (with Retry), or a spinner until
 * the first data arrives; nothing once there is data or nothing to load.
 */
export function LoadStatus({ load }: { load: Pick<Load<unknown>, "data" | "error" | "loading" | "reload"> }) {
  if (load.error !== null) return <ErrorState message={load.error} onRetry={() => void load.reload()} />;
  return load.data === undefined && load.loading ? <Loading /> : null;
}
