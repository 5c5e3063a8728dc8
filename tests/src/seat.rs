//! Where an end-to-end test's window lives. A test takes a **seat** — an X display of its own —
//! for as long as it drives a window: keyboard focus, the clipboard and the screen belong to a
//! display, so two tests on two displays cannot take each other's keys, while two on one display
//! would. The first seat is the display the tests run under (`xvfb-run`); the others are
//! Xvfb servers started on first use and ended with the test process.
//!
//! There are as many seats as the machine has cores (`TOLLGATE_E2E_SEATS` sets another number;
//! 1 runs the tests one at a time). Most of an end-to-end test's time is waiting for the window,
//! so on 2 cores two tests at once take about half as long. A test that uses something a
//! display does not scope — the desktop's notification server on the session bus — takes every
//! seat ([`Seat::alone`]).
//!
//! Everything a test starts on a display — the app, tauri-driver, xdotool, the screenshot —
//! asks [`display`] (or [`x_command`]) for the seat's display. The seat is known on the test's
//! own thread (the `#[tokio::test]` runtime runs there), so a helper that hands work to another
//! thread takes the display with it.

use crate::E2eError;
use std::cell::RefCell;
use std::io::{BufRead, BufReader};
use std::process::{ChildStdin, Command, Stdio};
use std::sync::{Arc, Mutex, OnceLock};
use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The seats and the displays behind them.
struct Seats {
    count: usize,
    permits: Arc<Semaphore>,
    /// Displays no test holds now.
    free: Mutex<Vec<String>>,
    /// The Xvfb servers started here: each ends when its stdin closes, which is when this
    /// process ends, however it ends.
    started: Mutex<Vec<ChildStdin>>,
}

fn seats() -> &'static Seats {
    static SEATS: OnceLock<Seats> = OnceLock::new();
    SEATS.get_or_init(|| {
        let count = std::env::var("TOLLGATE_E2E_SEATS")
            .ok()
            .and_then(|n| n.parse::<usize>().ok())
            .filter(|n| *n > 0)
            .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
        let first = std::env::var("DISPLAY").unwrap_or_default();
        Seats {
            count,
            permits: Arc::new(Semaphore::new(count)),
            free: Mutex::new(if first.is_empty() {
                Vec::new()
            } else {
                vec![first]
            }),
            started: Mutex::new(Vec::new()),
        }
    })
}

thread_local! {
    static CURRENT: RefCell<Option<String>> = const { RefCell::new(None) };
}

/// A display held by one test; given back when dropped.
pub struct Seat {
    displays: Vec<String>,
    _permit: OwnedSemaphorePermit,
}

impl Seat {
    /// Waits for a seat and makes its display this thread's.
    pub async fn take() -> Result<Self, E2eError> {
        Self::acquire(1).await
    }

    /// [`Self::take`] for a test that is not async.
    pub fn take_blocking() -> Result<Self, E2eError> {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .map_err(|source| E2eError::Io {
                what: "starting a runtime to wait for a seat".into(),
                source,
            })?
            .block_on(Self::take())
    }

    /// Waits until no other test holds a seat, then holds them all: for a test that uses what
    /// displays share (the session bus's notification server).
    pub async fn alone() -> Result<Self, E2eError> {
        Self::acquire(seats().count).await
    }

    async fn acquire(n: usize) -> Result<Self, E2eError> {
        let seats = seats();
        let permit = Arc::clone(&seats.permits)
            .acquire_many_owned(u32::try_from(n).unwrap_or(u32::MAX))
            .await
            .map_err(|_| E2eError::Timeout("the seats were closed".into()))?;
        let mut displays = Vec::new();
        for _ in 0..n {
            let free = seats.free.lock().unwrap_or_else(|p| p.into_inner()).pop();
            let display = match free {
                Some(d) => d,
                None => start_display()?,
            };
            displays.push(display);
        }
        let first = displays.first().cloned();
        CURRENT.with(|c| *c.borrow_mut() = first);
        Ok(Self {
            displays,
            _permit: permit,
        })
    }
}

impl Drop for Seat {
    fn drop(&mut self) {
        CURRENT.with(|c| *c.borrow_mut() = None);
        let mut free = seats().free.lock().unwrap_or_else(|p| p.into_inner());
        free.append(&mut self.displays);
    }
}

/// Starts an Xvfb server on a display number it picks itself, the size `xvfb-run` is given in
/// the README's test command, and waits until it is ready (it writes its number then).
fn start_display() -> Result<String, E2eError> {
    if std::env::var_os("DISPLAY").is_none() {
        return Err(E2eError::NoDisplay);
    }
    let mut child = Command::new("sh")
        .args([
            "-c",
            // Xvfb writes its display number to stdout once it accepts clients; it is ended when
            // this shell's stdin closes (the test process ended).
            "Xvfb -displayfd 1 -screen 0 1280x860x24 -nolisten tcp 2>/dev/null & x=$!; \
             read _ignored; kill $x; wait $x",
        ])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|source| E2eError::Io {
            what: "starting Xvfb for another seat".into(),
            source,
        })?;
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| E2eError::Timeout("Xvfb's output was not kept".into()))?;
    let mut line = String::new();
    BufReader::new(stdout)
        .read_line(&mut line)
        .map_err(|source| E2eError::Io {
            what: "reading Xvfb's display number".into(),
            source,
        })?;
    let number = line.trim();
    if number.is_empty() || !number.chars().all(|c| c.is_ascii_digit()) {
        return Err(E2eError::Timeout(format!(
            "Xvfb did not say which display it took ({line:?})"
        )));
    }
    if let Some(stdin) = child.stdin.take() {
        seats()
            .started
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(stdin);
    }
    Ok(format!(":{number}"))
}

/// The display of this thread's seat, else `$DISPLAY`.
pub fn display() -> String {
    CURRENT
        .with(|c| c.borrow().clone())
        .unwrap_or_else(|| std::env::var("DISPLAY").unwrap_or_default())
}

/// A command for `program` on this thread's display.
pub fn x_command(program: &str) -> Command {
    let mut cmd = Command::new(program);
    cmd.env("DISPLAY", display());
    cmd
}
