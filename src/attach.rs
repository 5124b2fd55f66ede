//! Attach mode: a `gasoline mcp` started while another gasoline holds the port and
//! writes the same database file. It reads the file itself (`Store::open_reader`)
//! and sends every `configure` call that may write to the owner's `/mcp`, which
//! answers it with its own writer: one writer per file. `gasoline clear` forwards
//! the same way ([`configure`]).

use std::time::{Duration, Instant};

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, ListToolsResult, PaginatedRequestParams,
    ProtocolVersion, ServerConfig, Tool,
};
use rmcp::service::RequestContext;
use rmcp::transport::StreamableHttpClientTransport;
use rmcp::{ClientLifecycleMode, ClientServiceExt, ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value};

use crate::mcp::GasolineMcp;
use crate::store::Store;

/// `configure` actions that only read the file: answered here, also while attached.
/// Every other action (clear, track_tab, capacity, mark, any added later) is
/// forwarded while this process does not write the file.
const READING_ACTIONS: [&str; 2] = ["status", "export"];

/// How long a call waits for this process to take the port over when the owner has
/// gone (it tries every 250 ms, then opens the file for writing).
const TAKE_OVER_WAIT: Duration = Duration::from_secs(5);

/// Why a forwarded call has no answer.
#[derive(Debug, thiserror::Error)]
pub enum ForwardError {
    /// No MCP session could be opened: the call was not sent.
    #[error("{0}")]
    Unreachable(String),
    /// The call was sent and no answer came back: it may have been applied.
    #[error("{0}")]
    NoAnswer(String),
}

/// Sends one `configure` call to the gasoline on `port` (its `/mcp`, streamable HTTP)
/// and returns its answer as it gave it, tool errors included. It speaks the stateless revision
/// (2026-07-28: `server/discover`, no session), so a forwarded call never takes one of the owner's
/// bounded MCP sessions, nor makes room by ending a client's.
pub async fn configure(port: u16, args: Map<String, Value>) -> Result<CallToolResult, ForwardError> {
    let url = format!("http://127.0.0.1:{port}/mcp");
    let stateless = ClientLifecycleMode::Discover { preferred_versions: vec![ProtocolVersion::V_2026_07_28] };
    let client =
        ().serve_with_lifecycle(StreamableHttpClientTransport::from_uri(url), stateless)
            .await
            .map_err(|e| ForwardError::Unreachable(format!("no MCP answer from it: {e}")))?;
    let request = CallToolRequestParams::new("configure").with_arguments(args);
    let answer = client.call_tool(request).await;
    let _ = client.cancel().await;
    answer.map_err(|e| ForwardError::NoAnswer(format!("no answer: {e}")))
}

/// The MCP handler of an attached process: observe and the reading `configure`
/// actions run here on the read-only store; the others go to the owner on `port`
/// until this process has taken the port over and writes the file itself.
#[derive(Clone)]
pub struct Attached {
    local: GasolineMcp,
    store: Store,
    port: u16,
}

impl Attached {
    /// `local` answers here (observe, and every call once this process writes the file).
    pub fn new(local: GasolineMcp, port: u16) -> Self {
        Attached { store: local.store().clone(), local, port }
    }

    fn forwards(&self, request: &CallToolRequestParams) -> bool {
        let action = request.arguments.as_ref().and_then(|a| a.get("action")).and_then(Value::as_str);
        request.name == "configure" && !action.is_some_and(|a| READING_ACTIONS.contains(&a)) && !self.store.is_writer()
    }

    /// True once this process writes the file, waiting at most [`TAKE_OVER_WAIT`].
    async fn took_over(&self) -> bool {
        let start = Instant::now();
        while !self.store.is_writer() && start.elapsed() < TAKE_OVER_WAIT {
            tokio::time::sleep(Duration::from_millis(50)).await;
        }
        self.store.is_writer()
    }
}

fn tool_error(message: String) -> Result<CallToolResponse, ErrorData> {
    Ok(CallToolResult::error(vec![ContentBlock::text(message)]).into())
}

impl ServerHandler for Attached {
    fn get_info(&self) -> ServerConfig {
        self.local.get_info()
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        self.local.list_tools(request, context).await
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.local.get_tool(name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        if !self.forwards(&request) {
            return self.local.call_tool(request, context).await;
        }
        // The port may have changed hands since this process attached: forward only to a
        // gasoline that writes this file.
        let owner = crate::commands::server::find(self.port, self.store.path()).await;
        if let Some(other) = owner.as_ref().filter(|o| !o.same_db) {
            return tool_error(format!(
                "the gasoline on port {} now writes {}, not the database this process reads; nothing was changed",
                self.port, other.db
            ));
        }
        let args = request.arguments.clone().unwrap_or_default();
        let sent = match owner {
            Some(_) => configure(self.port, args).await,
            None => Err(ForwardError::Unreachable("no gasoline answers there".into())),
        };
        match sent {
            Ok(answer) => Ok(answer.into()),
            // The owner is gone and nothing was sent: once this process writes, answer here.
            Err(ForwardError::Unreachable(_)) if self.took_over().await => self.local.call_tool(request, context).await,
            Err(ForwardError::Unreachable(e)) => tool_error(format!(
                "the gasoline on port {} writes the database this process reads, and {e}; nothing was \
                 changed: try again",
                self.port
            )),
            Err(ForwardError::NoAnswer(e)) => tool_error(format!(
                "the gasoline on port {} writes the database this process reads, and sent {e}; see observe \
                 or configure action=status for whether the change was made",
                self.port
            )),
        }
    }
}
