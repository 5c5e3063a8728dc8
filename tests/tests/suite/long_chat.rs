//! A long chat in the real window (F-71): it opens on its last page, the messages
//! before it are read behind the first screen, and what the user is reading stays where it is
//! while they come in. Scrolled to its start, the chat shows every message of its branch once,
//! in order.

use serde_json::json;
use std::time::Duration;
use tollgate_e2e::seat::Seat;
use tollgate_e2e::webdriver::Session;
use tollgate_scale::one_chat;
use tollgate_store::{Role, Store};

#[tokio::test]
async fn a_long_chat_opens_at_its_end_and_the_rest_comes_in_without_moving_the_view() {
    let _seat = Seat::take().await.unwrap();
    let dir = tempfile::tempdir().unwrap();
    let store = Store::open_in(dir.path()).unwrap();
    let chat = store.import_chat(one_chat(400, 16)).await.unwrap().id;
    let shown: Vec<i64> = store
        .branches()
        .chat_messages(chat)
        .await
        .unwrap()
        .into_iter()
        .filter(|m| m.role != Role::Tool)
        .map(|m| m.id)
        .collect();
    store.flush().await.unwrap();
    drop(store);

    let s = Session::start_in(dir, &[]).await.unwrap();
    s.script_timeout(Duration::from_secs(120)).await.unwrap();
    s.el(".chat-list .chat-item").await.unwrap();
    // Open the chat; once its last message is on screen, go up a screen (as a wheel does) and
    // note the message at the top of the view and where it is drawn; then wait until the chat
    // is whole and see where that message is drawn now.
    let opened = s
        .client
        .execute_async(
            r#"
            const [chat, last, done] = arguments;
            document.querySelector(`.chat-list .chat-item[data-chat="${chat}"]`).click();
            const el = () => document.querySelector('.chat-scroll');
            const head = () => document.querySelector('.chat-scroll .virtual-head');
            // Where a message is drawn in the chat's view: from the view's top, so that a bar
            // above the view that comes in meanwhile (the header, the exposure strip) is not counted.
            const inView = (m) => m.getBoundingClientRect().top - el().getBoundingClientRect().top;
            const topmost = () => {
              const view = el().getBoundingClientRect();
              return [...el().querySelectorAll('[data-message]')].find((m) => m.getBoundingClientRect().bottom > view.top + 1);
            };
            const frame = () => new Promise((r) => requestAnimationFrame(() => r()));
            (async () => {
              while (!document.querySelector(`.chat-scroll [data-message="${last}"]`)) await frame();
              const partial = document.querySelectorAll('.chat-scroll [data-message]').length;
              const loading = head() ? head().textContent : null;
              el().scrollTop -= el().clientHeight;
              await frame(); await frame();
              const reading = topmost();
              const id = Number(reading.dataset.message);
              const before = inView(reading);
              while (head()) await frame();
              await frame(); await frame();
              const now = document.querySelector(`.chat-scroll [data-message="${id}"]`);
              done({ loading, partial, id, before, after: now ? inView(now) : null });
            })();
            "#,
            vec![json!(chat.0), json!(shown.last().unwrap())],
        )
        .await
        .unwrap();
    assert!(
        opened["loading"]
            .as_str()
            .is_some_and(|t| t.contains("Loading earlier messages")),
        "the chat opened on its last page, saying that earlier messages are coming: {opened}"
    );
    let (before, after) = (
        opened["before"].as_f64().unwrap(),
        opened["after"]
            .as_f64()
            .expect("the message read is still drawn"),
    );
    assert!(
        (before - after).abs() < 2.0,
        "the message at the top of the view stayed where it was while the rest came in: {opened}"
    );

    // To the start, a screen a frame: every message of the branch is drawn, once, in order.
    let seen = s
        .client
        .execute_async(
            r#"
            const done = arguments[0];
            const el = document.querySelector('.chat-scroll');
            const seen = [];
            let disorder = null, still = 0;
            const step = () => {
              const ids = [...el.querySelectorAll('[data-message]')].map((m) => Number(m.dataset.message));
              if (ids.some((id, i) => i > 0 && id <= ids[i - 1])) disorder = ids;
              for (const id of ids) if (!seen.includes(id)) seen.push(id);
              const before = el.scrollTop;
              el.scrollTop = before - el.clientHeight;
              still = Math.abs(el.scrollTop - before) < 1 ? still + 1 : 0;
              if (still >= 3) done({ seen: seen.sort((a, b) => a - b), disorder, top: el.scrollTop });
              else requestAnimationFrame(step);
            };
            requestAnimationFrame(step);
            "#,
            vec![],
        )
        .await
        .unwrap();
    assert!(
        seen["disorder"].is_null(),
        "messages drawn out of order: {seen}"
    );
    let ids: Vec<i64> = seen["seen"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_i64().unwrap())
        .collect();
    assert_eq!(
        ids, shown,
        "scrolled to its start, the chat showed its whole branch"
    );
    s.screenshot("long-chat-start").await.unwrap();
    s.close().await;
}
