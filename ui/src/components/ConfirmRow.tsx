/**
 * The end of a card that asks the user to confirm what they read (a tool's change, a server's
 * first-sight review): what went wrong last time, the button, and one line on what it does.
 */
export function ConfirmRow(props: {
  error: string | null;
  busy: boolean;
  label: string;
  hint: string;
  role: string;
  primary?: boolean;
  /** Not yet possible (the hint says why). */
  disabled?: boolean;
  onConfirm: () => void;
}) {
  return (
    <>
      {props.error ? (
        <p class="inline-error" role="alert">
          {props.error}
        </p>
      ) : null}
      <div class="row">
        <button
          type="button"
          class={props.primary ? "btn btn--primary" : "btn"}
          disabled={props.busy || props.disabled === true}
          onClick={props.onConfirm}
          data-role={props.role}
        >
          {props.label}
        </button>
        <small class="muted">{props.hint}</small>
      </div>
    </>
  );
}
