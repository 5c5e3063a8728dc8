/**
 * Drops the webview's undo history once typed text has been sent.
 *
 * WebKit keeps an undo record for every keystroke typed into a text field for as long as the
 * page lives, even after the app has emptied the field or taken it away. Those records can no
 * longer undo anything (the text they would restore is gone), yet each typed message leaves
 * about 20 KB of them: megabytes over a day of chatting in one app run. WebKit clears the
 * page's undo history whenever a frame unloads, so a blank frame is put in and taken out again.
 * Browsers that keep no such history are unaffected, and a frame with no address loads nothing
 * (the CSP has nothing to allow).
 */
export function forgetTyping(): void {
  // In and out within one task: it is never laid out, painted or reachable by keyboard.
  const frame = document.createElement("iframe");
  frame.hidden = true;
  document.body.appendChild(frame);
  frame.remove();
}
