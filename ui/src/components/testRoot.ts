import { render } from "preact";
import { act } from "preact/test-utils";

/**
 * Unmounts whatever was rendered into `root`, inside `act`.
 *
 * Preact runs the cleanups of an unmounted component's effects after the next paint; unmounted
 * outside `act`, they could run after the test file's window was torn down ("window is not
 * defined" in a cleanup, which fails the whole run). `act` flushes them before it returns.
 */
export async function unmount(root: HTMLElement): Promise<void> {
  await act(() => {
    render(null, root);
  });
}
