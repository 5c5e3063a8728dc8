//! The readable text of a caught panic: a tool that crashed or a turn whose task died is
//! reported to the model or the user with it, never as a silent stop.

/// The panic's message (`panic!("…")` payloads are `&str` or `String`), or "unknown panic".
pub fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    payload
        .downcast_ref::<&str>()
        .map(|s| (*s).to_string())
        .or_else(|| payload.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".to_string())
}
