/** The one form-state helper: a form's fields in one value instead of a `useState` per field. */
import { useCallback, useState } from "preact/hooks";

/** What a form gets: its fields, a way to change one, whether anything changed, and a reset. */
export interface Form<T extends object> {
  /** The fields as they are now. */
  values: T;
  /**
   * Changes one field, to a value or by an update of the current one (several changes in one
   * event compose, as with `useState`). Stable across renders.
   */
  set: <K extends keyof T>(field: K, value: T[K] | ((current: T[K]) => T[K])) => void;
  /** Whether a field differs from where the form started (compared field by field, by identity). */
  dirty: boolean;
  /** Starts over: from `next` when given (what a save returned), else from where the form started. Stable across renders. */
  reset: (next?: T) => void;
}

interface FormState<T> {
  start: T;
  values: T;
}

/** The fields of `values` that differ from `start` (a form is dirty while there are any). */
export function changedFields<T extends object>(start: T, values: T): Array<keyof T> {
  const fields = new Set([...Object.keys(start), ...Object.keys(values)]) as Set<keyof T>;
  return [...fields].filter((k) => !Object.is(start[k], values[k]));
}

/**
 * Keeps a form's fields together: one state, so a form reads as its fields and their controls,
 * a change is `set("name", value)`, and dirty and reset come with it. `initial` is read once
 * (pass a function to build it only then), like `useState`'s.
 */
export function useForm<T extends object>(initial: T | (() => T)): Form<T> {
  const [state, setState] = useState<FormState<T>>(() => {
    const start = typeof initial === "function" ? (initial as () => T)() : initial;
    return { start, values: start };
  });
  const set = useCallback(<K extends keyof T>(field: K, value: T[K] | ((current: T[K]) => T[K])) => {
    setState((s) => {
      const next = typeof value === "function" ? (value as (current: T[K]) => T[K])(s.values[field]) : value;
      return Object.is(next, s.values[field]) ? s : { start: s.start, values: { ...s.values, [field]: next } };
    });
  }, []);
  const reset = useCallback((next?: T) => {
    setState((s) => {
      const start = next ?? s.start;
      return { start, values: start };
    });
  }, []);
  return { values: state.values, set, dirty: changedFields(state.start, state.values).length > 0, reset };
}
