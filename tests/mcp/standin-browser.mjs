// A stand-in for the system browser in the end-to-end tests (SPEC §11): the app's opener runs
// `xdg-open <address>`, a script on the test's PATH that calls this with a log file first. It
// writes the address to the log and loads it, following redirects — like a browser whose user
// clicked "Allow" on the authorization server's page, which sends it back to the app.
import { appendFileSync } from "node:fs";

const [log, address] = process.argv.slice(2);
appendFileSync(log, `${address}\n`);
try {
  await fetch(address, { redirect: "follow" });
} catch {
  // An address that cannot be reached (a page on the internet) is only recorded.
}
