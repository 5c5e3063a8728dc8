import { render } from "preact";
import { App, applyTheme } from "./components/App";

// Follow the system theme until the saved settings arrive, so dark systems never flash light.
applyTheme("system");
const root = document.getElementById("app");
if (root) render(<App />, root);
