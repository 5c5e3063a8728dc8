/** Timing against the window's frames. */

/**
 * Calls `fn` once the next frame is painted: a task posted from inside the frame's
 * `requestAnimationFrame` runs after that frame's style, layout and paint, not a whole frame later
 * (as a second `requestAnimationFrame` would). Returns a function that cancels the call.
 */
export function afterNextPaint(fn: () => void): () => void {
  let cancelled = false;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const frame = requestAnimationFrame(() => {
    timer = setTimeout(() => {
      if (!cancelled) fn();
    }, 0);
  });
  return () => {
    cancelled = true;
    cancelAnimationFrame(frame);
    if (timer !== undefined) clearTimeout(timer);
  };
}
