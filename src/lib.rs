//! Gasoline: a local browser-telemetry store for AI coding agents.
//! See ARCHITECTURE.md for the map.

pub mod cli;
pub mod commands;
pub mod export;
pub mod fuzz;
pub mod http;
pub mod ingest;
pub mod kind;
pub mod mcp;
pub mod probe;
pub mod query;
pub mod rows;
pub mod run;
pub mod store;
