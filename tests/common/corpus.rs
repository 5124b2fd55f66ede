//! Realistic captures of every kind, as the extension sends them: a Vite app's
//! console (logged objects, React warnings, stacks, non-ASCII text), its
//! waterfall (float durations, hashed chunk URLs), request bodies (JSON, HTML,
//! minified JS, base64, 1 MiB), WebSocket frames, actions and the extension's
//! own logs. Deterministic for a seed.

use serde_json::{Value, json};

use super::Rng;

const T0: i64 = 1_732_380_000_000;

const WORDS: &[&str] = &[
    "user",
    "session",
    "cart",
    "checkout",
    "failed",
    "loaded",
    "render",
    "component",
    "update",
    "state",
    "props",
    "request",
    "response",
    "timeout",
    "retry",
    "dashboard",
    "settings",
    "token",
    "refresh",
    "socket",
];
const MESSAGES: &[&str] = &[
    "Ошибка сети: не удалось загрузить данные пользователя",
    "网络错误：无法加载用户数据，请稍后再试。",
    "ネットワークエラー：ユーザーデータを読み込めませんでした。",
    "خطأ في الشبكة: تعذر تحميل بيانات المستخدم.",
    "Erreur réseau : impossible de charger les données de l'utilisateur.",
    "deploy ✅ done 🚀 users 👨‍👩‍👧 ready",
    "नेटवर्क त्रुटि: उपयोगकर्ता डेटा लोड नहीं हो सका।",
];
const MINIFIED: &str = "!function(e,t){\"object\"==typeof exports&&\"undefined\"!=typeof module?module.exports=t():\"function\"==typeof define&&define.amd?define(t):(e=e||self).Vue=t()}(this,function(){\"use strict\";var e=Object.freeze({});function t(e){return null==e}function n(e){return null!=e}function r(e){return!0===e}function o(e){return null!==e&&\"object\"==typeof e}var a=Object.prototype.toString;";

fn pick<'a>(rng: &mut Rng, list: &[&'a str]) -> &'a str {
    list[rng.range(0, list.len() as u64) as usize]
}

fn hex(rng: &mut Rng, n: usize) -> String {
    (0..n).map(|_| char::from(b"0123456789abcdef"[rng.range(0, 16) as usize])).collect()
}

pub fn base64(rng: &mut Rng, n: usize) -> String {
    const B64: &[u8] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    (0..n).map(|_| char::from(B64[rng.range(0, 64) as usize])).collect()
}

fn sentence(rng: &mut Rng, n: usize) -> String {
    (0..n).map(|_| pick(rng, WORDS)).collect::<Vec<_>>().join(" ")
}

fn stack(rng: &mut Rng) -> String {
    let mut s = String::from("TypeError: Cannot read properties of undefined (reading 'map')");
    for _ in 0..8 {
        s.push_str(&format!(
            "\n    at {} (http://localhost:5173/node_modules/.vite/deps/chunk-{}.js?v={}:{}:{})",
            pick(
                rng,
                &[
                    "ItemList",
                    "renderWithHooks",
                    "mountIndeterminateComponent",
                    "beginWork",
                    "HTMLUnknownElement.callCallback"
                ]
            ),
            hex(rng, 8).to_uppercase(),
            hex(rng, 8),
            rng.range(1, 20_000),
            rng.range(1, 80)
        ));
    }
    s
}

/// The console of a busy page: object logs like
/// `console.log('event i of the flood', {i, user: {id, name}, tags})`,
/// React-style warnings, errors with stacks, non-ASCII.
pub fn logs(rng: &mut Rng, n: usize, tab: i64) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let ts = T0 + i as i64 * 7;
            let url = "http://localhost:5173/dashboard?tab=overview";
            match rng.range(0, 10) {
                0 => json!({"tabId": tab, "ts": ts, "level": "error", "source": "exception", "url": url,
                            "message": "TypeError: Cannot read properties of undefined (reading 'map')",
                            "location": "http://localhost:5173/src/components/ItemList.tsx?t=1732380000000:23:19",
                            "stack": stack(rng)}),
                1 => json!({"tabId": tab, "ts": ts, "level": "warn", "source": "console", "url": url,
                            "message": format!("Warning: Each child in a list should have a unique \"key\" prop. Check the render method of `{}`.", pick(rng, &["ItemList", "Cart", "Nav"]))}),
                2 => json!({"tabId": tab, "ts": ts, "level": "info", "source": "console", "url": url,
                            "message": pick(rng, MESSAGES)}),
                3 => json!({"tabId": tab, "ts": ts, "level": "log", "source": "console", "url": url,
                            "message": format!("payload {}", json!({"token": base64(rng, 120), "id": hex(rng, 32)}))}),
                _ => json!({"tabId": tab, "ts": ts, "level": "log", "source": "console", "url": url,
                            "message": format!("event {i} of the flood {}", json!({"i": i, "user": {"id": i, "name": format!("user{i}")}, "tags": ["a", "b"]})),
                            "location": "http://localhost:5173/src/main.ts:12:9"}),
            }
        })
        .collect()
}

pub fn waterfall(rng: &mut Rng, n: usize, tab: i64) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let status = if rng.chance(5) { 500 } else if rng.chance(5) { 404 } else { 200 };
            json!({"tabId": tab, "ts": T0 + i as i64 * 11,
                   "url": format!("http://localhost:5173/node_modules/.vite/deps/chunk-{}.js?v={}", hex(rng, 8).to_uppercase(), hex(rng, 8)),
                   "initiatorType": pick(rng, &["script", "fetch", "img", "link", "xmlhttprequest"]),
                   "startTime": 123.40000000037253 + i as f64, "duration": 21.30000000004657 + rng.range(0, 900) as f64 / 7.0,
                   "transferSize": rng.range(0, 90_000), "encodedBodySize": 12_345, "decodedBodySize": 54_321,
                   "nextHopProtocol": "http/1.1", "responseStatus": status})
        })
        .collect()
}

/// Requests with bodies of every common shape, `big` of them 1 MiB.
pub fn bodies(rng: &mut Rng, n: usize, tab: i64, big: usize) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let body = if i < big {
                base64(rng, 1024 * 1024)
            } else {
                match i % 5 {
                    0 => json!({"items": (0..8).map(|_| json!({"id": hex(rng, 32), "title": sentence(rng, 4), "price": rng.range(0, 10_000) as f64 / 100.0})).collect::<Vec<_>>()}).to_string(),
                    1 => format!("<!DOCTYPE html><html><head><title>{}</title></head><body><div id=app class=\"container mx-auto\">{}</div></body></html>", sentence(rng, 3), sentence(rng, 40)),
                    2 => MINIFIED.repeat(4),
                    3 => base64(rng, 3000),
                    _ => json!({"message": pick(rng, MESSAGES), "details": sentence(rng, 20)}).to_string(),
                }
            };
            json!({"tabId": tab, "ts": T0 + i as i64 * 13, "method": pick(rng, &["GET", "POST"]),
                   "url": format!("https://api.example.com/v1/items/{}?page={i}&sort=-createdAt", hex(rng, 12)),
                   "status": if i % 7 == 0 { 500 } else { 200 }, "statusText": "OK", "initiator": "fetch",
                   "duration": 21.30000000004657 + i as f64,
                   "requestHeaders": {"accept": "application/json", "authorization": "[REDACTED]"},
                   "responseHeaders": {"content-type": "application/json; charset=utf-8", "etag": format!("W/\"{}\"", hex(rng, 32))},
                   "contentType": "application/json", "requestBody": json!({"q": sentence(rng, 3)}).to_string(),
                   "responseBody": body})
        })
        .collect()
}

pub fn websocket(rng: &mut Rng, n: usize, tab: i64) -> Vec<Value> {
    (0..n)
        .map(|i| {
            let data = if i % 4 == 0 {
                base64(rng, 400)
            } else {
                json!({"type": "tick", "symbol": "BTC-USD", "price": rng.range(0, 9_000_000) as f64 / 100.0, "seq": i}).to_string()
            };
            json!({"tabId": tab, "ts": T0 + i as i64 * 3, "connectionId": format!("ws-{}-1", hex(rng, 6)), "event": "message",
                   "direction": if i % 2 == 0 { "incoming" } else { "outgoing" },
                   "url": "wss://live.example.com/socket?token=[REDACTED]", "data": data, "size": 80})
        })
        .collect()
}

pub fn actions(rng: &mut Rng, n: usize, tab: i64) -> Vec<Value> {
    (0..n)
        .map(|i| {
            json!({"tabId": tab, "ts": T0 + i as i64 * 17, "type": pick(rng, &["click", "input", "keydown"]),
                   "selector": format!("#app > div.main > button.btn.btn-primary:nth-of-type({i})"), "tag": "button",
                   "text": pick(rng, MESSAGES), "url": "http://localhost:5173/checkout"})
        })
        .collect()
}

pub fn extension_logs(rng: &mut Rng, n: usize) -> Vec<Value> {
    (0..n)
        .map(|i| json!({"ts": T0 + i as i64, "level": "warn", "message": format!("delivery retry {i} for logs: {}", sentence(rng, 6))}))
        .collect()
}
