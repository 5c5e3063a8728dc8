/** The row both approval cards end with: a reason and the buttons that refuse. */
/** A way to refuse from the deny row: its words, its key, and what it sends with the reason. */
export interface Refusal {
  label: string;
  /** The key that does it from the card (shown as a hint). */
  key?: string;
  onRefuse: (reason: string | null) => void;
}

/**
 * The row both cards end with: why (optional, sent to the model) and the buttons that refuse.
 * The card's key handler reads the same `reason` (Esc refuses with it). The first refusal is the
 * plain one; the others are outlined.
 */
export function DenyRow(props: { placeholder: string; reason: string; onReason: (reason: string) => void; busy: boolean; refusals: Refusal[] }) {
  const reason = props.reason.trim() ? props.reason.trim() : null;
  return (
    <div class="approval-actions approval-deny">
      <input
        class="reason-input"
        placeholder={props.placeholder}
        value={props.reason}
        onInput={(e) => props.onReason(e.currentTarget.value)}
        data-role="reason"
      />
      {props.refusals.map((r, i) => (
        <button
          key={r.label}
          type="button"
          class={`btn ${i === 0 ? "btn--danger" : "btn--danger-outline"}`}
          disabled={props.busy}
          onClick={() => r.onRefuse(reason)}
        >
          {r.label}
          {r.key ? (
            <>
              {" "}
              <kbd>{r.key}</kbd>
            </>
          ) : null}
        </button>
      ))}
    </div>
  );
}
