//! Fetching a script or a map: only what [`Allowed`] permits (each redirect hop
//! checked again, at most [`MAX_REDIRECTS`]), no proxy, no cookies, a body of
//! at most [`MAX_BYTES`] (refused from `Content-Length`, or cut off as it
//! arrives), a timeout, and conditional requests with the validators of what
//! was fetched before (`If-None-Match`, `If-Modified-Since`).
//!
//! https: a site the person turned on is verified against the system's roots
//! (where a local CA such as mkcert's is installed). A loopback origin
//! (localhost, 127.0.0.1, ::1) is not verified: dev servers serve self-signed
//! certificates there (Vite's basic-ssl, `next dev --experimental-https`), the
//! browser already ran that script, and a connection that never leaves the
//! machine has no network in between to impersonate it.
//!
//! `localhost` and `*.localhost` are this machine whatever the system's resolver
//! says, as in Chrome (RFC 6761 §6.3): a dev server opened as
//! `http://app.localhost:5173` is asked on 127.0.0.1 and ::1, never elsewhere.
//!
//! Time: a whole fetch (its redirect hops too) gets [`TIMEOUT`]; an origin that
//! did not answer within it is not asked again for [`STALLED_FOR`], so that one
//! dev server stopped in a debugger costs one timeout, not one per frame of
//! every entry waiting behind it.

use std::collections::HashMap;
use std::net::{Ipv6Addr, SocketAddr};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use reqwest::dns::{Addrs, Name, Resolve, Resolving};
use reqwest::header::{self, HeaderMap};
use url::Url;

use super::Unmapped;
use super::scope::{Allowed, is_loopback};

/// The largest script or map fetched.
pub const MAX_BYTES: usize = 20 * 1024 * 1024;
/// Redirect hops followed, each inside the scope.
pub const MAX_REDIRECTS: usize = 3;
/// One fetch, redirect hops included, connection to last byte.
pub const TIMEOUT: Duration = Duration::from_secs(5);
/// How long an origin that let a fetch time out is left alone.
pub const STALLED_FOR: Duration = Duration::from_secs(30);

/// What identifies a version of a response.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Validators {
    pub etag: Option<String>,
    pub last_modified: Option<String>,
}

impl Validators {
    fn of(headers: &HeaderMap) -> Validators {
        let text = |name| headers.get(name).and_then(|v| v.to_str().ok()).map(str::to_string);
        Validators { etag: text(header::ETAG), last_modified: text(header::LAST_MODIFIED) }
    }

    pub fn is_empty(&self) -> bool {
        self.etag.is_none() && self.last_modified.is_none()
    }
}

/// A response's body and what else resolving needs of it.
#[derive(Debug)]
pub struct Body {
    pub bytes: Vec<u8>,
    pub validators: Validators,
    /// The `SourceMap` (or `X-SourceMap`) header.
    pub sourcemap_header: Option<String>,
    /// The URL after redirects.
    pub url: Url,
}

/// What a fetch got.
#[derive(Debug)]
pub enum Fetched {
    Body(Body),
    /// 304: what was fetched with these validators is still current.
    NotModified,
}

/// The HTTP clients of the resolver.
#[derive(Clone)]
pub struct Fetcher {
    /// Certificates verified against the system's roots.
    verified: reqwest::Client,
    /// For loopback origins: any certificate (see the module's note), localhost names on loopback.
    loopback: reqwest::Client,
    /// Origins whose last fetch timed out, and when.
    stalled: Arc<Mutex<HashMap<String, Instant>>>,
}

impl Fetcher {
    pub fn new() -> Result<Fetcher, reqwest::Error> {
        let builder = || {
            reqwest::Client::builder()
                .redirect(reqwest::redirect::Policy::none())
                .no_proxy()
                .timeout(TIMEOUT)
                .connect_timeout(Duration::from_secs(2))
                .user_agent(concat!("gasoline/", env!("CARGO_PKG_VERSION"), " (source maps)"))
        };
        Ok(Fetcher {
            verified: builder().build()?,
            loopback: builder().danger_accept_invalid_certs(true).dns_resolver(Arc::new(LocalhostNames)).build()?,
            stalled: Arc::default(),
        })
    }

    fn client(&self, url: &Url) -> &reqwest::Client {
        if is_loopback(url) { &self.loopback } else { &self.verified }
    }

    /// GETs `url` if `allowed` permits it (and every hop it redirects to), within [`TIMEOUT`]
    /// in all; at once `TimedOut` when its origin let a fetch time out in the last [`STALLED_FOR`].
    pub async fn get(&self, url: &Url, allowed: &Allowed, known: Option<&Validators>) -> Result<Fetched, Unmapped> {
        let origin = url.origin().ascii_serialization();
        {
            let mut stalled = self.stalled.lock().unwrap_or_else(|e| e.into_inner());
            stalled.retain(|_, at| at.elapsed() < STALLED_FOR);
            if stalled.contains_key(&origin) {
                return Err(Unmapped::TimedOut);
            }
        }
        let result =
            tokio::time::timeout(TIMEOUT, self.get_hops(url, allowed, known)).await.unwrap_or(Err(Unmapped::TimedOut));
        if result.as_ref().is_err_and(|e| *e == Unmapped::TimedOut) {
            self.stalled.lock().unwrap_or_else(|e| e.into_inner()).insert(origin, Instant::now());
        }
        result
    }

    async fn get_hops(&self, url: &Url, allowed: &Allowed, known: Option<&Validators>) -> Result<Fetched, Unmapped> {
        let mut url = url.clone();
        for _ in 0..=MAX_REDIRECTS {
            if !allowed.permits(&url) {
                return Err(Unmapped::NotInScope);
            }
            let mut request = self.client(&url).get(url.clone());
            if let Some(known) = known {
                if let Some(etag) = &known.etag {
                    request = request.header(header::IF_NONE_MATCH, etag);
                }
                if let Some(modified) = &known.last_modified {
                    request = request.header(header::IF_MODIFIED_SINCE, modified);
                }
            }
            let mut response = request.send().await.map_err(failure)?;
            let status = response.status();
            if status.is_redirection() && status != reqwest::StatusCode::NOT_MODIFIED {
                let next = response.headers().get(header::LOCATION).and_then(|l| l.to_str().ok());
                url = next.and_then(|l| url.join(l).ok()).ok_or(Unmapped::NotFound)?;
                continue;
            }
            if status == reqwest::StatusCode::NOT_MODIFIED {
                return if known.is_some() { Ok(Fetched::NotModified) } else { Err(Unmapped::NotFound) };
            }
            if !status.is_success() {
                return Err(Unmapped::NotFound);
            }
            if response.content_length().is_some_and(|n| n > MAX_BYTES as u64) {
                return Err(Unmapped::TooLarge);
            }
            let headers = response.headers();
            let validators = Validators::of(headers);
            let sourcemap_header = ["sourcemap", "x-sourcemap"]
                .iter()
                .find_map(|name| headers.get(*name).and_then(|v| v.to_str().ok()).map(str::to_string));
            let mut bytes = Vec::new();
            while let Some(chunk) = response.chunk().await.map_err(failure)? {
                if bytes.len() + chunk.len() > MAX_BYTES {
                    return Err(Unmapped::TooLarge);
                }
                bytes.extend_from_slice(&chunk);
            }
            return Ok(Fetched::Body(Body { bytes, validators, sourcemap_header, url }));
        }
        Err(Unmapped::NotFound)
    }
}

/// `localhost` and `*.localhost` on 127.0.0.1 and ::1, as Chrome resolves them, whatever the
/// system's resolver says (most say nothing of `app.localhost`). The loopback client meets no
/// other name ([`is_loopback`] gives it only these and loopback addresses).
struct LocalhostNames;

impl Resolve for LocalhostNames {
    fn resolve(&self, name: Name) -> Resolving {
        let host = name.as_str().trim_end_matches('.').to_ascii_lowercase();
        Box::pin(async move {
            if host == "localhost" || host.ends_with(".localhost") {
                let addrs: Addrs = Box::new(
                    [SocketAddr::from(([127, 0, 0, 1], 0)), SocketAddr::from((Ipv6Addr::LOCALHOST, 0))].into_iter(),
                );
                Ok(addrs)
            } else {
                Err(format!("{host} is not a name of this machine").into())
            }
        })
    }
}

fn failure(e: reqwest::Error) -> Unmapped {
    if e.is_timeout() { Unmapped::TimedOut } else { Unmapped::Unreachable }
}
