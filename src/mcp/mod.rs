//! The MCP server: tools `observe` and `configure` over any rmcp transport.
//! Arguments are parsed by `query::args` (not by serde into typed structs) so
//! that every mistake comes back as a tool error the agent can read and fix.

mod configure;
pub mod envelope;
mod schema;
pub mod stdio;

use std::sync::Arc;

use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation, ListToolsResult,
    PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool, ToolAnnotations,
};
use rmcp::service::RequestContext;
use rmcp::{ErrorData, RoleServer, ServerHandler};
use serde_json::{Map, Value};

use crate::query::{self, QueryError};
use crate::store::Store;
use crate::viewer::Address;

/// One MCP session's handler; cheap to build (a store handle).
#[derive(Clone)]
pub struct GasolineMcp {
    store: Store,
    /// Where the viewer is served, for the link in observe answers (none while no viewer is).
    viewer: Address,
}

impl GasolineMcp {
    pub fn new(store: Store) -> Self {
        GasolineMcp { store, viewer: Address::default() }
    }

    pub fn store(&self) -> &Store {
        &self.store
    }

    /// Observe answers carry a link to the viewer at `viewer` whenever it holds a port.
    pub fn with_viewer(mut self, viewer: Address) -> Self {
        self.viewer = viewer;
        self
    }

    /// Both tools work on the local store alone (`openWorldHint: false`: the spec's default is an
    /// open world, one the tool reaches out into).
    fn tools() -> Vec<Tool> {
        vec![
            Tool::new("observe", schema::OBSERVE_DESCRIPTION, Arc::new(schema::observe()))
                .with_annotations(
                    ToolAnnotations::with_title("Observe browser telemetry").read_only(true).open_world(false),
                )
                .with_meta(schema::observe_meta()),
            Tool::new("configure", schema::CONFIGURE_DESCRIPTION, Arc::new(schema::configure())).with_annotations(
                ToolAnnotations::with_title("Configure Gasoline").destructive(true).open_world(false),
            ),
        ]
    }

    async fn observe(&self, args: Map<String, Value>) -> Result<String, QueryError> {
        let args = query::parse(&args).map_err(QueryError::Invalid)?;
        let link = self.viewer.link(&args);
        self.store.read(move |conn| query::observe_linked(conn, &args, link.as_deref())).await
    }
}

impl ServerHandler for GasolineMcp {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(Implementation::new("gasoline", env!("CARGO_PKG_VERSION")))
            .with_instructions(
                "Gasoline holds what the user's browser tabs did (console, network, WebSocket, actions). \
                 Start with observe what=summary (counts, error groups, failed and slow requests in a few hundred \
                 tokens), then list with what=errors or what=logs offset=-50, drill into an entry with id=N, and \
                 follow `cursor` with after_cursor to read on. After the user reloads, since_navigation=true shows \
                 only what followed. When an answer has `viewer`, it is a link to show the user in their browser: \
                 put an entry's id in place of {id} to open that entry.",
            )
    }

    async fn list_tools(
        &self,
        request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        // One page holds every tool, so no cursor was ever given out: any cursor is invalid
        // (MCP pagination: "Invalid cursors SHOULD result in an error with code -32602").
        if let Some(cursor) = request.and_then(|r| r.cursor) {
            let shown: String = cursor.chars().take(40).collect();
            return Err(ErrorData::invalid_params(
                format!("invalid cursor \"{shown}\": tools/list answers every tool on its first page; send no cursor"),
                None,
            ));
        }
        Ok(ListToolsResult::with_all_items(Self::tools()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        Self::tools().into_iter().find(|t| t.name == name)
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        let args = request.arguments.unwrap_or_default();
        let answer = match request.name.as_ref() {
            "observe" => self.observe(args).await,
            "configure" => configure::run(&self.store, &args).await.map(|v| v.to_string()),
            other => {
                return Err(ErrorData::invalid_params(
                    format!("unknown tool \"{other}\": this server has observe and configure"),
                    None,
                ));
            }
        };
        let result = match answer {
            Ok(text) => CallToolResult::success(vec![ContentBlock::text(text)]),
            Err(QueryError::Invalid(message)) => CallToolResult::error(vec![ContentBlock::text(message)]),
            Err(QueryError::Store(e)) => {
                tracing::error!("{} failed: {e}", request.name);
                CallToolResult::error(vec![ContentBlock::text(format!("gasoline could not read its database: {e}"))])
            }
        };
        Ok(result.into())
    }
}
