//! When each MCP session over HTTP was last used. The sessions open at once are
//! bounded (`MAX_SESSIONS`); past the bound a new `initialize` ends the least
//! recently used one rather than being refused, so that a client that leaked
//! sessions cannot lock every other client out, and a session an agent keeps
//! idle while its person is away lives as long as there is room (or a day,
//! `--mcp-session-keep-alive`). A client whose session was ended gets 404 and,
//! as the spec says, initializes again.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Instant;

use rmcp::transport::streamable_http_server::SessionManager;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;

/// Most MCP sessions open at once over HTTP (about 56 KB each).
pub const MAX_SESSIONS: usize = 128;

#[derive(Clone)]
pub struct Sessions {
    pub manager: Arc<LocalSessionManager>,
    used: Arc<Mutex<HashMap<Arc<str>, Instant>>>,
}

impl Sessions {
    pub fn new(manager: Arc<LocalSessionManager>) -> Self {
        Self { manager, used: Arc::default() }
    }

    /// Whether the session `id` exists.
    pub async fn knows(&self, id: &str) -> bool {
        self.manager.sessions.read().await.contains_key(id)
    }

    /// The session `id` was used now.
    pub fn touch(&self, id: &str) {
        let mut used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
        match used.get_mut(id) {
            Some(at) => *at = Instant::now(),
            None => {
                used.insert(Arc::from(id), Instant::now());
            }
        }
    }

    /// Makes room for one more session when the bound is reached: ends the least recently used
    /// (one never seen by the gate counts as the oldest), and forgets sessions that ended.
    pub async fn make_room(&self) {
        let open: Vec<Arc<str>> = self.manager.sessions.read().await.keys().cloned().collect();
        let oldest = {
            let mut used = self.used.lock().unwrap_or_else(PoisonError::into_inner);
            used.retain(|id, _| open.contains(id));
            if open.len() < MAX_SESSIONS {
                return;
            }
            open.iter().min_by_key(|id| used.get(*id).copied()).cloned()
        };
        if let Some(id) = oldest {
            tracing::info!(session = %id, "{MAX_SESSIONS} MCP sessions open: ending the least recently used");
            self.forget(&id);
            // An error here is a session that ended meanwhile: the room is made either way.
            let _ = self.manager.close_session(&id).await;
        }
    }

    /// The session `id` ended.
    pub fn forget(&self, id: &str) {
        self.used.lock().unwrap_or_else(PoisonError::into_inner).remove(id);
    }
}
