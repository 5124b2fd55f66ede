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

use std::time::Duration;

use reqwest::header::{self, HeaderMap};
use url::Url;

use super::Unmapped;
use super::scope::{Allowed, is_loopback};

/// The largest script or map fetched.
pub const MAX_BYTES: usize = 20 * 1024 * 1024;
/// Redirect hops followed, each inside the scope.
pub const MAX_REDIRECTS: usize = 3;
/// One request, connection to last byte.
pub const TIMEOUT: Duration = Duration::from_secs(5);

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
    /// For loopback origins: any certificate (see the module's note).
    loopback: reqwest::Client,
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
        Ok(Fetcher { verified: builder().build()?, loopback: builder().danger_accept_invalid_certs(true).build()? })
    }

    fn client(&self, url: &Url) -> &reqwest::Client {
        if is_loopback(url) { &self.loopback } else { &self.verified }
    }

    /// GETs `url` if `allowed` permits it (and every hop it redirects to).
    pub async fn get(&self, url: &Url, allowed: &Allowed, known: Option<&Validators>) -> Result<Fetched, Unmapped> {
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

fn failure(e: reqwest::Error) -> Unmapped {
    if e.is_timeout() { Unmapped::TimedOut } else { Unmapped::NotFound }
}
