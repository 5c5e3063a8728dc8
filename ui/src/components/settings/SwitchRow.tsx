/**
 * A setting that is on or off: the switch, what it does in bold, and what that means for the
 * user underneath. One shape for every such setting, so each reads (and is reached with Tab and
 * Space) the same way.
 */
export function SwitchRow(props: { role?: string; checked: boolean; onChange: (on: boolean) => void; title: string; hint?: string; wide?: boolean }) {
  return (
    <label class={props.wide ? "switch-row field--wide" : "switch-row"}>
      <input
        type="checkbox"
        class="switch"
        data-role={props.role}
        checked={props.checked}
        onChange={(e) => props.onChange(e.currentTarget.checked)}
      />
      <span>
        <strong>{props.title}</strong>
        {props.hint ? <small class="muted block">{props.hint}</small> : null}
      </span>
    </label>
  );
}
