//! Gasoline: a local browser-telemetry store for AI coding agents.
//! See ARCHITECTURE.md for the map.

#[cfg(feature = "app")]
pub mod attach;
pub mod capture;
#[cfg(feature = "app")]
pub mod cli;
#[cfg(feature = "app")]
pub mod commands;
#[cfg(feature = "app")]
pub mod export;
pub mod fuzz;
#[cfg(feature = "app")]
pub mod http;
pub mod ingest;
pub mod kind;
#[cfg(feature = "app")]
pub mod mcp;
pub mod printable;
#[cfg(feature = "app")]
pub mod probe;
pub mod query;
#[cfg(feature = "app")]
pub mod run;
#[cfg(feature = "app")]
pub mod sourcemap;
pub mod store;
pub mod surrogates;
pub mod unique_keys;
#[cfg(feature = "app")]
pub mod viewer;
