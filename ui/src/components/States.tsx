import { t } from "../i18n";

/** A section that is still loading. */
export function Loading() {
  return (
    <div class="state" role="status">
      <span class="spinner" aria-hidden="true" /> {t("common.loading")}
    </div>
  );
}

/** A section that could not load, with the reason. */
export function ErrorState({ message }: { message: string }) {
  return (
    <div class="state state--error" role="alert">
      {t("common.error", { message })}
    </div>
  );
}
