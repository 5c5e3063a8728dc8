//! Steps the end-to-end tests share, written the way a user works the window: open settings, add
//! a provider, change a tool's policy, start a chat, type, press keys, wait for text.

use crate::webdriver::{Session, ELEMENT_POLL};
use crate::E2eError;
use fantoccini::actions::{InputSource, KeyAction, KeyActions};
use fantoccini::elements::Element;
use fantoccini::Locator;
use std::time::{Duration, Instant};
use tollgate_mock_llm::MockLlm;

/// How long a step waits for the window before it fails. A bound, never a wait: a step goes on
/// the moment the window is ready. It is set for a machine whose two cores are also busy with
/// other work and the other test lane, where the window runs four times slower than alone (15 s
/// was once too short there for a card to appear).
pub const STEP: Duration = Duration::from_secs(60);

/// WebDriver key codes.
pub mod keys {
    pub const ENTER: char = '\u{E007}';
    pub const TAB: char = '\u{E004}';
    pub const SPACE: char = '\u{E00D}';
    pub const ESCAPE: char = '\u{E00C}';
    pub const CONTROL: char = '\u{E009}';
    pub const SHIFT: char = '\u{E008}';
    pub const BACKSPACE: char = '\u{E003}';
    pub const ARROW_DOWN: char = '\u{E015}';
    /// Releases held modifier keys.
    pub const NULL: char = '\u{E000}';
}

fn fail(what: impl std::fmt::Display) -> E2eError {
    E2eError::Timeout(what.to_string())
}

impl Session {
    /// The first element matching `css`, waiting for it to appear.
    pub async fn el(&self, css: &str) -> Result<Element, E2eError> {
        self.client
            .wait()
            .at_most(STEP)
            .every(ELEMENT_POLL)
            .for_element(Locator::Css(css))
            .await
            .map_err(|e| fail(format!("no \"{css}\" within {STEP:?}: {e}")))
    }

    /// Clicks the first element matching `css`, once it stands still: WebDriver clicks where it
    /// measured the element, so a click while the page still moves it (a list loading above)
    /// lands beside it.
    pub async fn click(&self, css: &str) -> Result<(), E2eError> {
        let el = self.el(css).await?;
        self.until_still(&el).await?;
        el.click()
            .await
            .map_err(|e| fail(format!("clicking \"{css}\": {e}")))
    }

    /// Waits until `el` has kept its place and size for two painted frames.
    pub async fn until_still(&self, el: &Element) -> Result<(), E2eError> {
        let arg = serde_json::to_value(el)
            .map_err(|e| fail(format!("passing an element to the page: {e}")))?;
        self.client
            .execute_async(
                "const el = arguments[0], done = arguments[arguments.length - 1]; \
                 let last = '', same = 0; \
                 const tick = () => { \
                   if (!el.isConnected) return done(false); \
                   const r = el.getBoundingClientRect(); \
                   const now = [r.x, r.y, r.width, r.height].join(); \
                   if (now === last) { if (++same >= 2) return done(true); } else { same = 0; last = now; } \
                   requestAnimationFrame(tick); \
                 }; \
                 requestAnimationFrame(tick);",
                vec![arg],
            )
            .await
            .map_err(|e| fail(format!("waiting for an element to stand still: {e}")))?;
        Ok(())
    }

    /// Waits until the open Settings tab has loaded what it shows (no "Loading…" left in it),
    /// so that what it lists no longer moves the buttons below.
    pub async fn settings_loaded(&self) -> Result<(), E2eError> {
        let deadline = Instant::now() + STEP;
        while self.exists(".settings-body .state[role=status]").await? {
            if Instant::now() > deadline {
                return Err(fail("the Settings tab is still loading".to_string()));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(())
    }

    /// Clicks the first element matching `css` whose text starts with `text`.
    pub async fn click_text(&self, css: &str, text: &str) -> Result<(), E2eError> {
        let deadline = Instant::now() + STEP;
        loop {
            let all = self
                .client
                .find_all(Locator::Css(css))
                .await
                .map_err(|e| fail(format!("finding \"{css}\": {e}")))?;
            for el in all {
                if el.text().await.is_ok_and(|t| t.trim().starts_with(text)) {
                    return el
                        .click()
                        .await
                        .map_err(|e| fail(format!("clicking \"{text}\": {e}")));
                }
            }
            if Instant::now() > deadline {
                return Err(fail(format!("no \"{css}\" reading \"{text}\"")));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// The visible text of the whole window, read by the page itself (`innerText`): WebDriver's
    /// "element text" of a `body` it found a moment before failed once on a loaded machine
    /// ("Cannot check the displayedness of a non-Element argument", the e2e run with both cores
    /// kept busy, 2026-11-28), while the page's own reading has no element to lose.
    pub async fn body_text(&self) -> Result<String, E2eError> {
        self.el("body").await?;
        let text = self
            .client
            .execute(
                "return document.body ? document.body.innerText : '';",
                vec![],
            )
            .await
            .map_err(|e| fail(format!("reading the page: {e}")))?;
        Ok(text.as_str().unwrap_or_default().to_string())
    }

    /// Waits until the window shows `needle`; returns the text then shown.
    pub async fn wait_for_text(&self, needle: &str, timeout: Duration) -> Result<String, E2eError> {
        let deadline = Instant::now() + timeout;
        loop {
            let text = self.body_text().await?;
            if text.contains(needle) {
                return Ok(text);
            }
            if Instant::now() > deadline {
                return Err(fail(format!(
                    "\"{needle}\" never appeared; the window shows:\n{text}"
                )));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Replaces the whole text of a field as a user does: select all, then type. (WebDriver's
    /// clear does not fire `input`, so a re-render in between could bring the old text back.)
    pub async fn replace_text(&self, field: &Element, text: &str) -> Result<(), E2eError> {
        field
            .click()
            .await
            .map_err(|e| fail(format!("focusing a field: {e}")))?;
        field
            .send_keys(&format!(
                "{}a{}{}",
                keys::CONTROL,
                keys::NULL,
                keys::BACKSPACE
            ))
            .await
            .map_err(|e| fail(format!("selecting a field's text: {e}")))?;
        field
            .send_keys(text)
            .await
            .map_err(|e| fail(format!("typing into a field: {e}")))
    }

    /// Saves the window in the light and the dark theme: `<name>.png` and `<name>-dark.png`
    /// (the page's theme is switched for the shot and put back after).
    pub async fn screenshots(&self, name: &str) -> Result<(), E2eError> {
        let set = |theme: &str| {
            self.client.execute(
                "const root = document.documentElement; const was = root.dataset.theme || ''; \
                 root.dataset.theme = arguments[0]; return was;",
                vec![serde_json::Value::String(theme.to_string())],
            )
        };
        let was = set("light")
            .await
            .map_err(|e| fail(format!("switching to the light theme: {e}")))?;
        self.painted().await?;
        self.screenshot(name).await?;
        set("dark")
            .await
            .map_err(|e| fail(format!("switching to the dark theme: {e}")))?;
        self.painted().await?;
        self.screenshot(&format!("{name}-dark")).await?;
        set(was.as_str().unwrap_or("light"))
            .await
            .map_err(|e| fail(format!("restoring the theme: {e}")))?;
        Ok(())
    }

    /// Waits until the composer's text satisfies `done` (a prompt filled in, a summary carried
    /// over); returns it. Fails after [`STEP`] with what it holds.
    pub async fn until_composer(&self, done: impl Fn(&str) -> bool) -> Result<String, E2eError> {
        let deadline = Instant::now() + STEP;
        self.el("#composer").await?;
        loop {
            // Read by the page: a new chat replaces the composer, and WebDriver's read of an
            // element found a moment before failed on a loaded machine ("Node with identifier
            // … was not found", 2026-11-28).
            let value = self
                .client
                .execute(
                    "const c = document.querySelector('#composer'); return c ? c.value : '';",
                    vec![],
                )
                .await
                .map_err(|e| fail(format!("reading the composer: {e}")))?;
            let value = value.as_str().unwrap_or_default().to_string();
            if done(&value) {
                return Ok(value);
            }
            if Instant::now() > deadline {
                return Err(fail(format!("the composer holds {value:?}")));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits until the page has painted what it was just given: two animation frames (the
    /// first may already be under way when the change came).
    pub async fn painted(&self) -> Result<(), E2eError> {
        self.client
            .execute_async(
                "const done = arguments[arguments.length - 1]; \
                 requestAnimationFrame(() => requestAnimationFrame(() => done(null)));",
                vec![],
            )
            .await
            .map_err(|e| fail(format!("waiting for the page to paint: {e}")))?;
        Ok(())
    }

    /// Waits until at least `n` elements match `css` (drawn or not); fails after [`STEP`].
    pub async fn wait_count(&self, css: &str, n: usize) -> Result<(), E2eError> {
        let deadline = Instant::now() + STEP;
        loop {
            let found = self
                .client
                .find_all(Locator::Css(css))
                .await
                .map_err(|e| fail(format!("finding \"{css}\": {e}")))?
                .len();
            if found >= n {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(fail(format!("{found} of {n} \"{css}\" after {STEP:?}")));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Whether an element matching `css` exists right now.
    pub async fn exists(&self, css: &str) -> Result<bool, E2eError> {
        Ok(!self
            .client
            .find_all(Locator::Css(css))
            .await
            .map_err(|e| fail(format!("finding \"{css}\": {e}")))?
            .is_empty())
    }

    /// The drawn height in CSS pixels of the first element matching `css` (0 if none): how a test
    /// sees that content was folded away or opened, which WebDriver's element text cannot tell.
    pub async fn height(&self, css: &str) -> Result<f64, E2eError> {
        let v = self
            .client
            .execute(
                "const e = document.querySelector(arguments[0]); return e ? e.getBoundingClientRect().height : 0;",
                vec![serde_json::Value::String(css.to_string())],
            )
            .await
            .map_err(|e| fail(format!("measuring \"{css}\": {e}")))?;
        Ok(v.as_f64().unwrap_or(0.0))
    }

    /// Presses a key wherever the focus is (as a person at the keyboard would).
    pub async fn press(&self, key: char) -> Result<(), E2eError> {
        let actions = KeyActions::new("keyboard".into())
            .then(KeyAction::Down { value: key })
            .then(KeyAction::Up { value: key });
        self.client
            .perform_actions(actions)
            .await
            .map_err(|e| fail(format!("pressing a key: {e}")))
    }

    /// Presses Shift+Tab wherever the focus is: the focus moves back one stop.
    pub async fn press_shift_tab(&self) -> Result<(), E2eError> {
        let actions = KeyActions::new("keyboard".into())
            .then(KeyAction::Down { value: keys::SHIFT })
            .then(KeyAction::Down { value: keys::TAB })
            .then(KeyAction::Up { value: keys::TAB })
            .then(KeyAction::Up { value: keys::SHIFT });
        self.client
            .perform_actions(actions)
            .await
            .map_err(|e| fail(format!("pressing Shift+Tab: {e}")))
    }

    /// Opens Settings on the tab labelled `tab`, once it has loaded.
    pub async fn open_settings(&self, tab: &str) -> Result<(), E2eError> {
        self.click("button.sidebar-settings").await?;
        self.click_text("[role=tab]", tab).await?;
        self.settings_loaded().await
    }

    /// Imports MCP servers in Settings → MCP servers, as a user pastes an `mcpServers` JSON from
    /// another client, and returns `server`'s line of what it offers once it is connected.
    /// Settings stays open.
    pub async fn import_mcp_servers(
        &self,
        json: &serde_json::Value,
        server: &str,
    ) -> Result<String, E2eError> {
        self.import_mcp_json(json).await?;
        self.wait_text(
            &format!("[data-server={server}] [data-role=mcp-offers]"),
            Duration::from_secs(60),
        )
        .await
    }

    /// Pastes an `mcpServers` JSON into Settings → MCP servers → Import (opening Settings and
    /// the section when they are not open) and presses Import.
    pub async fn import_mcp_json(&self, json: &serde_json::Value) -> Result<(), E2eError> {
        if !self.exists(".mcp-import").await? {
            self.open_settings("MCP servers").await?;
        }
        // A click lands where the summary was when WebDriver measured it: on a loaded machine
        // the tab may still be settling (its list loading above), and the click misses. A
        // summary toggles as it is clicked, so a click that worked shows at once; one that
        // missed is made again.
        let deadline = Instant::now() + STEP;
        while !self.import_section_open().await? {
            if Instant::now() > deadline {
                return Err(fail("the import section never opened".to_string()));
            }
            self.click(".mcp-import summary").await?;
            if !self.import_section_open().await? {
                tokio::time::sleep(Duration::from_millis(100)).await;
            }
        }
        let area = self.el(".mcp-import textarea").await?;
        self.replace_text(&area, &json.to_string()).await?;
        // Import is the next stop after the field: Tab and Enter, as a user does (no click to
        // miss a button that moved).
        self.press(keys::TAB).await?;
        let focused = self.focused().await?;
        if !focused.starts_with("BUTTON|") || !focused.ends_with("|Import") {
            return Err(fail(format!(
                "Tab from the import field reached {focused}, not Import"
            )));
        }
        self.press(keys::ENTER).await
    }

    /// Whether Settings → MCP servers → Import is open.
    async fn import_section_open(&self) -> Result<bool, E2eError> {
        let open = self
            .client
            .execute(
                "return document.querySelector('.mcp-import')?.open === true;",
                vec![],
            )
            .await
            .map_err(|e| fail(format!("reading the import section: {e}")))?;
        Ok(open == serde_json::Value::Bool(true))
    }

    /// Leaves Settings.
    pub async fn back_to_chat(&self) -> Result<(), E2eError> {
        self.click(".settings-header button").await
    }

    /// Adds an OpenAI-compatible provider through Settings → Providers, with its key.
    pub async fn add_openai_provider(
        &self,
        name: &str,
        base_url: &str,
        model: &str,
        key: &str,
    ) -> Result<(), E2eError> {
        self.add_provider("openai", name, base_url, model, key)
            .await
    }

    /// Adds a provider of `kind` (`openai` or `anthropic`) in Settings → Providers, key and all.
    pub async fn add_provider(
        &self,
        kind: &str,
        name: &str,
        base_url: &str,
        model: &str,
        key: &str,
    ) -> Result<(), E2eError> {
        self.open_settings("Providers").await?;
        self.el("form.add-provider select")
            .await?
            .select_by_value(kind)
            .await
            .map_err(|e| fail(format!("choosing the kind {kind}: {e}")))?;
        let form = self.el("form.add-provider").await?;
        let inputs = form
            .find_all(Locator::Css("input:not([type=checkbox])"))
            .await
            .map_err(|e| fail(format!("the provider form: {e}")))?;
        let [n, url, m, k] = inputs.as_slice() else {
            return Err(fail(format!(
                "the provider form has {} inputs, not 4",
                inputs.len()
            )));
        };
        for (input, value) in [(n, name), (url, base_url), (m, model), (k, key)] {
            self.replace_text(input, value).await?;
        }
        self.click("form.add-provider button[type=submit]").await?;
        // The new card: its name (form fields are not page text) and its saved key.
        self.wait_for_text(name, STEP).await?;
        self.wait_for_text("Key saved", STEP).await?;
        self.back_to_chat().await
    }

    /// Starts the mock LLM server and the app (with `env`) on a data folder that already holds
    /// the server as an OpenAI-compatible provider, its key in the keychain: set up as the
    /// app's own Settings would save it (`Providers::add`, `Providers::save_key`), so the tests
    /// whose subject is not the Settings page start in the chat. Adding a provider through the
    /// window is `add_openai_provider`, and the tests of that form use it.
    pub async fn with_mock_provider(
        env: &[(&str, &str)],
        key: &str,
    ) -> Result<(Session, MockLlm), E2eError> {
        let mock = start_mock().await?;
        let data_dir = crate::webdriver::data_folder()?;
        seed_openai_provider(
            data_dir.path(),
            "Mock",
            &format!("{}/v1", mock.url()),
            "mock-large",
            key,
        )
        .await?;
        let s = Session::start_in(data_dir, env).await?;
        Ok((s, mock))
    }

    /// Starts the mock LLM server and the app (with `env`), and adds the server as an
    /// OpenAI-compatible provider through Settings → Providers, key and all, as a user does:
    /// for the tests whose subject is that form or where the key goes from it.
    pub async fn with_mock_provider_from_settings(
        env: &[(&str, &str)],
        key: &str,
    ) -> Result<(Session, MockLlm), E2eError> {
        let mock = start_mock().await?;
        let s = Session::start(env).await?;
        s.add_openai_provider("Mock", &format!("{}/v1", mock.url()), "mock-large", key)
            .await?;
        Ok((s, mock))
    }

    /// Sets the open chat's workspace folder by typing it in the header, as a user does.
    pub async fn set_workspace(&self, folder: &std::path::Path) -> Result<(), E2eError> {
        let field = self.el(".workspace input").await?;
        field
            .send_keys(&folder.display().to_string())
            .await
            .map_err(|e| fail(format!("typing the workspace: {e}")))?;
        field
            .send_keys(&keys::ENTER.to_string())
            .await
            .map_err(|e| fail(format!("setting the workspace: {e}")))
    }

    /// Sets a tool's execution and/or result policy in Settings → Tools, then returns to the chat.
    pub async fn set_tool_policy(
        &self,
        tool: &str,
        execution: Option<&str>,
        result: Option<&str>,
    ) -> Result<(), E2eError> {
        self.open_settings("Tools").await?;
        for (column, value) in [(3, execution), (4, result)] {
            let Some(value) = value else { continue };
            let css = format!("tr[data-tool=\"{tool}\"] td:nth-child({column}) select");
            let saves = self.settings_saves("tool-settings").await?;
            self.el(&css)
                .await?
                .select_by_value(value)
                .await
                .map_err(|e| fail(format!("choosing {value} for {tool}: {e}")))?;
            self.until_settings_saved("tool-settings", saves).await?;
        }
        self.back_to_chat().await
    }

    /// Turns a tool group on or off app-wide in Settings → Tools, then returns to the chat.
    pub async fn set_group_enabled(&self, group: &str, on: bool) -> Result<(), E2eError> {
        self.open_settings("Tools").await?;
        let toggle = self
            .el(&format!(
                "[data-group=\"{group}\"] .card-header input.switch"
            ))
            .await?;
        let checked = toggle
            .prop("checked")
            .await
            .map_err(|e| fail(format!("reading the toggle: {e}")))?
            .as_deref()
            == Some("true");
        if checked != on {
            let saves = self.settings_saves("tool-settings").await?;
            toggle
                .click()
                .await
                .map_err(|e| fail(format!("toggling {group}: {e}")))?;
            self.until_settings_saved("tool-settings", saves).await?;
        }
        self.back_to_chat().await
    }

    /// How many changes the settings section `role` (`tool-settings`, `general-settings`) has
    /// saved since it opened.
    pub async fn settings_saves(&self, role: &str) -> Result<u64, E2eError> {
        let value = self
            .el(&format!("[data-role=\"{role}\"]"))
            .await?
            .attr("data-saves")
            .await
            .map_err(|e| fail(format!("reading the saves: {e}")))?;
        Ok(value.and_then(|v| v.parse().ok()).unwrap_or(0))
    }

    /// Waits until the settings section `role` has saved one more change than `before` (the
    /// state, not the notice: the notice clears itself and a slow poll could miss it).
    pub async fn until_settings_saved(&self, role: &str, before: u64) -> Result<(), E2eError> {
        let deadline = Instant::now() + STEP;
        while self.settings_saves(role).await? <= before {
            if Instant::now() > deadline {
                let text = self.body_text().await?;
                return Err(fail(format!(
                    "{role} was never saved; the window shows:\n{text}"
                )));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        Ok(())
    }

    /// Starts a new chat and sends `text` from the composer.
    pub async fn new_chat_and_send(&self, text: &str) -> Result<(), E2eError> {
        self.new_chat().await?;
        self.send(text).await
    }

    /// Starts a new chat and waits until it is the one on screen, so that what comes next (the
    /// composer above all) is the new chat's and not the one being replaced.
    pub async fn new_chat(&self) -> Result<(), E2eError> {
        let before = self.open_chat().await?;
        self.click("button.new-chat").await?;
        let deadline = Instant::now() + STEP;
        loop {
            let now = self.open_chat().await?;
            if !now.is_empty() && now != before {
                return Ok(());
            }
            if Instant::now() > deadline {
                return Err(fail("the new chat never opened"));
            }
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
    }

    /// The id of the chat on screen, empty when none is.
    pub async fn open_chat(&self) -> Result<String, E2eError> {
        let v = self
            .client
            .execute(
                "const e = document.querySelector('section.chat'); return e ? e.dataset.chat || '' : '';",
                vec![],
            )
            .await
            .map_err(|e| fail(format!("reading the open chat: {e}")))?;
        Ok(v.as_str().unwrap_or_default().to_string())
    }

    /// Sends `text` from the composer of the open chat.
    pub async fn send(&self, text: &str) -> Result<(), E2eError> {
        let composer = self.el("#composer").await?;
        composer
            .send_keys(text)
            .await
            .map_err(|e| fail(format!("typing a message: {e}")))?;
        composer
            .send_keys(&keys::ENTER.to_string())
            .await
            .map_err(|e| fail(format!("sending a message: {e}")))
    }

    /// The first stretch of the active card's arguments its gate note marks as untrusted.
    pub async fn untrusted_mark(&self) -> Result<String, E2eError> {
        self.el(".approval-card.is-active mark[data-span=untrusted]")
            .await?
            .text()
            .await
            .map_err(|e| fail(format!("reading the card's highlighted text: {e}")))
    }

    /// Types `text` where the keyboard is, as a user does.
    pub async fn type_here(&self, text: &str) -> Result<(), E2eError> {
        self.client
            .active_element()
            .await
            .map_err(|e| fail(format!("finding the focus: {e}")))?
            .send_keys(text)
            .await
            .map_err(|e| fail(format!("typing \"{text}\": {e}")))
    }

    /// The approval card that has the keyboard, once it shows.
    pub async fn active_approval(&self) -> Result<Element, E2eError> {
        self.el(".approval-card.is-active").await
    }

    /// What has the keyboard focus: its tag, text (or value) and `data-role`, from the page.
    pub async fn focused(&self) -> Result<String, E2eError> {
        let v = self
            .client
            .execute(
                "const e = document.activeElement; if (!e) return ''; \
                 return e.tagName + '|' + (e.getAttribute('data-role') || '') + '|' + (e.textContent || e.value || '').trim();",
                vec![],
            )
            .await
            .map_err(|e| fail(format!("reading the focus: {e}")))?;
        Ok(v.as_str().unwrap_or_default().to_string())
    }

    /// Presses Tab, as a user does, until the focused element's text starts with `label` (or its
    /// `data-role` is `label`). Fails after 40 presses.
    pub async fn tab_to(&self, label: &str) -> Result<(), E2eError> {
        self.move_focus_to(label, false).await
    }

    /// Like [`Session::tab_to`], backwards with Shift+Tab.
    pub async fn back_tab_to(&self, label: &str) -> Result<(), E2eError> {
        self.move_focus_to(label, true).await
    }

    async fn move_focus_to(&self, label: &str, backwards: bool) -> Result<(), E2eError> {
        for _ in 0..40 {
            let focused = self.focused().await?;
            let mut parts = focused.splitn(3, '|');
            let (_tag, role, text) = (
                parts.next().unwrap_or_default(),
                parts.next().unwrap_or_default(),
                parts.next().unwrap_or_default(),
            );
            if role == label || text.starts_with(label) {
                return Ok(());
            }
            if backwards {
                self.press_shift_tab().await?;
            } else {
                self.press(keys::TAB).await?;
            }
        }
        Err(fail(format!("Tab never reached \"{label}\"")))
    }

    /// The decision lines of the newest tool card in the conversation (not the log's copy).
    pub async fn last_decisions(&self) -> Result<String, E2eError> {
        let v = self
            .client
            .execute(
                "const cards = [...document.querySelectorAll('.tool-card:not(.tool-card--compact)')]; \
                 const last = cards[cards.length - 1]; \
                 return last ? [...last.querySelectorAll('.tool-card-decision')].map(d => d.textContent.trim()).join(' / ') : '';",
                vec![],
            )
            .await
            .map_err(|e| fail(format!("reading the decisions: {e}")))?;
        Ok(v.as_str().unwrap_or_default().to_string())
    }

    /// Waits until the newest tool card's decision lines contain `needle`.
    pub async fn wait_for_decision(&self, needle: &str) -> Result<String, E2eError> {
        let deadline = Instant::now() + STEP;
        loop {
            let lines = self.last_decisions().await?;
            if lines.contains(needle) {
                return Ok(lines);
            }
            if Instant::now() > deadline {
                return Err(fail(format!(
                    "the last tool card reads \"{lines}\", not \"{needle}\""
                )));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Waits until no approval card is shown.
    pub async fn approvals_gone(&self) -> Result<(), E2eError> {
        self.wait_gone(
            ".approval-card",
            "an approval card stayed after the decision",
        )
        .await
    }

    /// Waits until nothing matches `css` (a popover closed, Stop gave way to Send); fails with
    /// `what` after [`STEP`].
    pub async fn wait_gone(&self, css: &str, what: &str) -> Result<(), E2eError> {
        let deadline = Instant::now() + STEP;
        while self.exists(css).await? {
            if Instant::now() > deadline {
                return Err(fail(what));
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
        Ok(())
    }

    /// The newest assistant message as stored in the app's database file: its text and status.
    pub fn last_answer_row(&self) -> Result<(String, String), E2eError> {
        let db = rusqlite::Connection::open(self.data_path().join("tollgate.sqlite3"))
            .map_err(|e| fail(format!("opening the database: {e}")))?;
        db.query_row(
            "SELECT content, status FROM messages WHERE role = 'assistant' ORDER BY id DESC LIMIT 1",
            [],
            |r| Ok((r.get(0)?, r.get(1)?)),
        )
        .map_err(|e| fail(format!("reading the last answer: {e}")))
    }
}

pub use tollgate_mock_llm::openai::tool_results;

/// Every file of the app's data folder `dir` (the database, its journal, the log) whose bytes
/// hold `text`: where a secret must never be. A folder or file that cannot be read is an error
/// (it would otherwise hold nothing, and prove nothing).
pub fn data_files_holding(
    dir: &std::path::Path,
    text: &str,
) -> Result<Vec<std::path::PathBuf>, E2eError> {
    let mut found = Vec::new();
    let entries = std::fs::read_dir(dir)
        .map_err(crate::io(format!("reading the folder {}", dir.display())))?;
    for entry in entries {
        let path = entry.map_err(crate::io("reading a folder entry"))?.path();
        if path.is_dir() {
            found.extend(data_files_holding(&path, text)?);
            continue;
        }
        let bytes = match std::fs::read(&path) {
            Ok(bytes) => bytes,
            // Gone since the folder was read (a journal the database removed): it holds nothing.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => continue,
            Err(e) => return Err(crate::io(format!("reading {}", path.display()))(e)),
        };
        if bytes.windows(text.len()).any(|w| w == text.as_bytes()) {
            found.push(path);
        }
    }
    Ok(found)
}

/// The chat-completions requests the mock received, in order.
pub fn completions(mock: &MockLlm) -> Vec<serde_json::Value> {
    mock.requests()
        .into_iter()
        .filter(|r| r.method == "POST" && r.path.ends_with("/chat/completions"))
        .map(|r| r.body)
        .collect()
}

/// Saves an OpenAI-compatible provider with its key in the data folder `dir`, before the app
/// starts on it, through the engine's own provider settings (the key in the keychain of that
/// folder, never in the database).
pub async fn seed_openai_provider(
    dir: &std::path::Path,
    name: &str,
    base_url: &str,
    model: &str,
    key: &str,
) -> Result<(), E2eError> {
    use tollgate_protocol::ProviderKind;
    use tollgate_store::ProviderInput;
    let store = tollgate_store::Store::open_in(dir)
        .map_err(|e| fail(format!("opening the data folder's database: {e}")))?;
    let providers = tollgate_providers::config::Providers::new(
        store.clone(),
        tollgate_secrets::Keychain::for_data_dir(dir),
    );
    let added = providers
        .add(ProviderInput {
            kind: ProviderKind::OpenAi,
            name: name.into(),
            base_url: base_url.into(),
            default_model: model.into(),
            tool_calling: Default::default(),
            options: Default::default(),
        })
        .await
        .map_err(|e| fail(format!("adding the provider {name}: {e}")))?;
    providers
        .save_key(added.id, key)
        .await
        .map_err(|e| fail(format!("saving the key of {name}: {e}")))?;
    store
        .flush()
        .await
        .map_err(|e| fail(format!("writing the data folder's database: {e}")))
}

/// The mock LLM server, started for one test.
async fn start_mock() -> Result<MockLlm, E2eError> {
    MockLlm::start()
        .await
        .map_err(|e| fail(format!("starting the mock LLM server: {e}")))
}
