/** The editor a card opens to change what goes on (a call's arguments, a result's text), and the focus rule of opened panels. */
import { useEffect, useRef } from "preact/hooks";
import { t } from "../i18n";

/** A ref that takes the keyboard focus when its element first appears: a panel the user just
 * opened (edit arguments, always allow, edit result) is where their next keys belong, and it sits
 * above the button that opened it, so Tab alone would never reach it. */
export function useFocusOnOpen<T extends HTMLElement>() {
  const ref = useRef<T>(null);
  useEffect(() => {
    ref.current?.focus();
  }, []);
  return ref;
}

/** A text editor that opens focused (see `useFocusOnOpen`). */
function OpenedEditor(props: { rows: number; value: string; role: string; onText: (text: string) => void }) {
  const ref = useFocusOnOpen<HTMLTextAreaElement>();
  return (
    <textarea
      ref={ref}
      class="mono json-editor"
      rows={props.rows}
      value={props.value}
      spellcheck={false}
      onInput={(e) => props.onText(e.currentTarget.value)}
      data-role={props.role}
    />
  );
}

/**
 * The editor both cards open to change what goes on (the call's arguments, the result's text),
 * with Apply and Cancel: one place for its focus and keys.
 */
export function EditPanel(props: {
  hint?: string;
  rows: number;
  value: string;
  role: string;
  onText: (text: string) => void;
  error?: string | null;
  applyLabel: string;
  busy: boolean;
  onApply: () => void;
  onCancel: () => void;
}) {
  return (
    <div class="approval-panel" data-role={`edit-${props.role}`}>
      {props.hint ? <small class="muted">{props.hint}</small> : null}
      <OpenedEditor rows={props.rows} value={props.value} role={props.role} onText={props.onText} />
      {props.error ? <p class="inline-error">{props.error}</p> : null}
      <div class="row">
        <button type="button" class="btn btn--primary" disabled={props.busy} onClick={props.onApply}>
          {props.applyLabel}
        </button>
        <button type="button" class="btn" onClick={props.onCancel}>
          {t("common.cancel")}
        </button>
      </div>
    </div>
  );
}
