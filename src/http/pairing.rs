//! Which extension may talk to the server: exactly one extension id. It is the
//! one given by `--extension-id` / `GASOLINE_EXTENSION_ID`, else the one recorded
//! in the database's `settings` (key `extension_id`), else the first extension
//! that connects (trust on first use: recorded and logged). Any other extension
//! origin is refused with a message that says how to re-pair.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use tokio::sync::Mutex;

use super::error::ApiError;
use crate::store::{Store, sql};

/// How long the recorded pairing is trusted before the database is read again,
/// so that `gasoline pair --reset` takes effect on a running server.
const RECHECK: Duration = Duration::from_secs(1);
/// A refused extension is said in the server's log at most this often (it retries every batch).
const SAY_REFUSED_EVERY: Duration = Duration::from_secs(60);
/// Refused ids remembered for that; past this many, forgotten all at once.
const REFUSED_KEPT: usize = 64;

pub struct Pairing {
    store: Store,
    /// From the command line: then nothing else is ever accepted.
    configured: Option<String>,
    recorded: Mutex<Recorded>,
    /// When each refused extension was last said in the log.
    refused: std::sync::Mutex<HashMap<String, Instant>>,
}

#[derive(Default)]
struct Recorded {
    id: Option<String>,
    read_at: Option<Instant>,
}

/// Whether `id` is a Chrome extension id: 32 letters from `a` to `p` (Chrome writes the first
/// 128 bits of the SHA-256 of the extension's key as hex, with the digits 0-f as a-p).
pub fn valid_id(id: &str) -> bool {
    id.len() == 32 && id.bytes().all(|b| (b'a'..=b'p').contains(&b))
}

impl Pairing {
    pub fn new(store: Store, configured: Option<String>) -> Self {
        Pairing { store, configured, recorded: Mutex::new(Recorded::default()), refused: Default::default() }
    }

    /// The id accepted now: the configured one, else the one recorded (None: the first to connect).
    pub async fn current(&self) -> Result<Option<String>, ApiError> {
        match &self.configured {
            Some(id) => Ok(Some(id.clone())),
            None => Ok(self.store.read(sql::paired_extension).await?),
        }
    }

    /// Accepts the extension `id` (from a `chrome-extension://id` origin) or refuses it. A refusal
    /// is also said in the server's log, once a minute per extension: a person who loaded the
    /// extension from another folder (another id) and runs no popup sees why nothing arrives.
    pub async fn check(&self, id: &str) -> Result<(), ApiError> {
        let checked = self.decide(id).await;
        if let Err(ApiError::Forbidden(why)) = &checked {
            self.say_refused(id, why);
        }
        checked
    }

    fn say_refused(&self, id: &str, why: &str) {
        let Ok(mut said) = self.refused.lock() else { return };
        if said.get(id).is_some_and(|at| at.elapsed() < SAY_REFUSED_EVERY) {
            return;
        }
        if said.len() >= REFUSED_KEPT {
            said.clear();
        }
        said.insert(id.to_owned(), Instant::now());
        tracing::warn!("{why}");
    }

    async fn decide(&self, id: &str) -> Result<(), ApiError> {
        if let Some(configured) = &self.configured {
            return if configured == id { Ok(()) } else { Err(refusal(id, configured, "--extension-id")) };
        }
        let mut recorded = self.recorded.lock().await;
        if recorded.read_at.is_none_or(|t| t.elapsed() > RECHECK) {
            recorded.id = self.store.read(sql::paired_extension).await?;
            recorded.read_at = Some(Instant::now());
        }
        match &recorded.id {
            Some(paired) if paired == id => Ok(()),
            Some(paired) => Err(refusal(id, paired, "the database")),
            None => {
                if !valid_id(id) {
                    return Err(ApiError::Forbidden(format!(
                        "\"chrome-extension://{id}\" is not an extension id gasoline can pair with"
                    )));
                }
                self.store.set_setting(sql::EXTENSION_ID, Some(id.to_owned())).await?;
                tracing::warn!(
                    "paired with extension {id} (the first to connect); only it may send telemetry or read it. \
                     To pair another: gasoline pair --reset, or start with --extension-id ID"
                );
                recorded.id = Some(id.to_owned());
                Ok(())
            }
        }
    }
}

/// Why the extension `id` is refused while gasoline is paired with `paired`: how to re-pair, when
/// `id` is one gasoline could pair with; else that it is none (no `--extension-id` would take it).
fn refusal(id: &str, paired: &str, from: &str) -> ApiError {
    if !valid_id(id) {
        return ApiError::Forbidden(format!(
            "requests from \"chrome-extension://{id}\" are refused: gasoline is paired with extension {paired} \
             (from {from}), and \"{id}\" is not an extension id gasoline can pair with (Chrome's are 32 letters \
             from a to p)"
        ));
    }
    ApiError::Forbidden(format!(
        "requests from the extension \"chrome-extension://{id}\" are refused: gasoline is paired with extension \
         {paired} (from {from}). To pair with this one instead, run `gasoline pair --reset` (the next extension \
         to connect is then trusted), or start gasoline with --extension-id {id} (or GASOLINE_EXTENSION_ID={id})"
    ))
}
