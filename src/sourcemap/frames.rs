//! The frames of a V8 stack (`Error.stack` text, as the extension stores it in
//! `stack`) and the call site of a console call (`location`, "url:line:col"),
//! with their 1-based line and column. Pure.

/// Most frames of one entry that are resolved (an entry's stacks, cause chain
/// included, are cut to the message cap by the extension; this bounds the work
/// and what is written back).
pub const MAX_FRAMES: usize = 32;

/// Longest script URL resolved, in bytes (the extension cuts longer call sites with "…").
pub const MAX_URL: usize = 2048;

/// One frame of a script position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Frame {
    /// The position as the stack wrote it: "url:line:col".
    pub at: String,
    /// The function the stack names, if any ("App", "async load", "new Cart").
    pub function: Option<String>,
    /// The script's URL.
    pub url: String,
    /// 1-based, as V8 writes it.
    pub line: u32,
    /// 1-based, in UTF-16 code units as V8 counts them.
    pub column: u32,
}

/// "url:line:col" → (url, line, col); None for anything else (no position,
/// a zero line or column, a URL cut by the extension with "…").
pub fn split_position(text: &str) -> Option<(&str, u32, u32)> {
    let (rest, column) = text.rsplit_once(':')?;
    let (url, line) = rest.rsplit_once(':')?;
    let line: u32 = line.parse().ok().filter(|n| *n > 0)?;
    let column: u32 = column.parse().ok().filter(|n| *n > 0)?;
    if url.is_empty() || url.len() > MAX_URL || url.contains('…') {
        return None;
    }
    Some((url, line, column))
}

/// A WebAssembly frame's place as V8 writes it, "url:wasm-function[3]:0x8e" (the function's index,
/// the byte offset in the module) → (url, 1, offset + 1): a wasm source map maps a module as one
/// line whose columns are byte offsets, and the browser's error event says the same position so.
pub fn wasm_position(text: &str) -> Option<(&str, u32, u32)> {
    let (rest, offset) = text.rsplit_once(":0x")?;
    let (url, function) = rest.rsplit_once(":wasm-function[")?;
    function.strip_suffix(']')?.parse::<u32>().ok()?;
    let offset = u32::from_str_radix(offset, 16).ok()?.checked_add(1)?;
    if url.is_empty() || url.len() > MAX_URL || url.contains('…') {
        return None;
    }
    Some((url, 1, offset))
}

/// The call site the extension stored in `location`: "url:line:col", or for
/// eval'd code "url:line:col (eval …)", whose script position is where eval
/// was called.
pub fn location_frame(location: &str) -> Option<Frame> {
    let at = location.split_once(" (eval").map_or(location, |(before, _)| before).trim();
    let (url, line, column) = split_position(at)?;
    Some(Frame { at: at.to_string(), function: None, url: url.to_string(), line, column })
}

/// The frames of every "    at …" line of a stack (a cause chain's stacks
/// too), in order, at most [`MAX_FRAMES`]. Frames without a script position
/// (native code, eval'd code, `<anonymous>`) are passed over.
pub fn stack_frames(stack: &str) -> Vec<Frame> {
    stack.lines().filter_map(frame_of_line).take(MAX_FRAMES).collect()
}

/// The frames of a console call's `callers` ("url:line:col" lines, the call site's callers,
/// innermost first), at most [`MAX_FRAMES`]; as in a stack, code without a script of its own
/// (`<anonymous>`: a string run by `eval` or `new Function`, DevTools' console) is passed over.
pub fn caller_frames(callers: &str) -> Vec<Frame> {
    callers
        .lines()
        .filter(|line| !line.trim_start().starts_with("<anonymous>"))
        .filter_map(location_frame)
        .take(MAX_FRAMES)
        .collect()
}

/// One "    at fn (url:line:col)" or "    at url:line:col" line.
fn frame_of_line(line: &str) -> Option<Frame> {
    let text = line.trim().strip_prefix("at ")?;
    let (function, place) = match text.strip_suffix(')') {
        Some(inner) => {
            // "fn (LOC)": LOC runs from the "(" matching the last ")"; names can hold parentheses.
            let open = matching_open(inner)?;
            (Some(inner[..open].trim()), &inner[open + 1..])
        }
        // "at async url:line:col": an anonymous async function resumed after an await (V8 names
        // the frame `async` and no function); the URL is what follows.
        None => match text.strip_prefix("async ") {
            Some(place) => (Some("async"), place),
            None => (None, text),
        },
    };
    if place.starts_with("eval at ") || place.contains("<anonymous>") {
        return None;
    }
    let (url, line, column) = split_position(place).or_else(|| wasm_position(place))?;
    let function = function.filter(|f| !f.is_empty()).map(str::to_string);
    Some(Frame { at: place.to_string(), function, url: url.to_string(), line, column })
}

/// The index of the "(" that opens the group closed by the ")" just after `inner`.
fn matching_open(inner: &str) -> Option<usize> {
    let mut depth = 1usize;
    for (i, c) in inner.char_indices().rev() {
        match c {
            ')' => depth += 1,
            '(' => {
                depth -= 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => {}
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wasm_frame_is_its_module_s_one_line_at_its_byte_offset() {
        let stack = "RuntimeError: unreachable\n    at assembly/index/crash (http://127.0.0.1:5173/trap.wasm:wasm-function[0]:0x68)\n    at HTMLButtonElement.<anonymous> (http://127.0.0.1:5173/src/wasm.js:19:8)";
        let frames = stack_frames(stack);
        assert_eq!(frames.len(), 2);
        assert_eq!(
            (frames[0].url.as_str(), frames[0].line, frames[0].column, frames[0].function.as_deref()),
            ("http://127.0.0.1:5173/trap.wasm", 1, 0x69, Some("assembly/index/crash"))
        );
        assert_eq!(frames[0].at, "http://127.0.0.1:5173/trap.wasm:wasm-function[0]:0x68");
        assert_eq!(wasm_position("http://x/a.wasm:wasm-function[x]:0x68"), None);
        assert_eq!(wasm_position("http://x/a.wasm:0x68"), None);
    }

    #[test]
    fn positions_split_from_the_right() {
        assert_eq!(
            split_position("http://localhost:5173/src/App.jsx?t=1:12:9"),
            Some(("http://localhost:5173/src/App.jsx?t=1", 12, 9))
        );
        assert_eq!(split_position("http://[::1]:3000/a.js:1:20931"), Some(("http://[::1]:3000/a.js", 1, 20931)));
        assert_eq!(split_position("http://x/a.js:0:1"), None);
        assert_eq!(split_position("http://x/a.js"), None);
        assert_eq!(split_position("data:text/javascript,…:1:5"), None);
        assert_eq!(split_position(":1:2"), None);
    }

    #[test]
    fn stacks_give_their_script_frames() {
        let stack = "Error: boom\n    at App (http://localhost:5173/src/App.jsx?t=17:14:11)\n    at renderWithHooks (http://localhost:5173/node_modules/.vite/deps/react-dom_client.js?v=1:5:22)\n    at Array.map (<anonymous>)\n    at http://localhost:5173/main.js:3:1\n    at async load (http://localhost:5173/a.js:9:2)\n    at eval (eval at run (http://localhost:5173/a.js:1:5), <anonymous>:1:1)\n    at fn (weird (name)) (http://localhost:5173/b.js:2:3)\n    at async http://localhost:5173/src/Panel.vue:57:4\nCaused by: Error: inner\n    at inner (http://localhost:5173/c.js:7:8)";
        let frames = stack_frames(stack);
        let got: Vec<(Option<&str>, &str, u32, u32)> =
            frames.iter().map(|f| (f.function.as_deref(), f.url.as_str(), f.line, f.column)).collect();
        assert_eq!(
            got,
            vec![
                (Some("App"), "http://localhost:5173/src/App.jsx?t=17", 14, 11),
                (
                    Some("renderWithHooks"),
                    "http://localhost:5173/node_modules/.vite/deps/react-dom_client.js?v=1",
                    5,
                    22
                ),
                (None, "http://localhost:5173/main.js", 3, 1),
                (Some("async load"), "http://localhost:5173/a.js", 9, 2),
                (Some("fn (weird (name))"), "http://localhost:5173/b.js", 2, 3),
                // An anonymous async function resumed: its URL is the page's, not "async http://…".
                (Some("async"), "http://localhost:5173/src/Panel.vue", 57, 4),
                (Some("inner"), "http://localhost:5173/c.js", 7, 8),
            ]
        );
        assert_eq!(frames[0].at, "http://localhost:5173/src/App.jsx?t=17:14:11");
        let many = (0..100).map(|i| format!("    at f (http://x/a.js:{}:1)", i + 1)).collect::<Vec<_>>().join("\n");
        assert_eq!(stack_frames(&many).len(), MAX_FRAMES);
    }

    #[test]
    fn webpack_eval_d_modules_give_their_frames_next_js_layers_included() {
        let stack = "Error: boom\n    at explode (webpack-internal:///./src/util.js:15:9)\n    at Page (webpack-internal:///(app-pages-browser)/./src/app/page.js:12:9)\n    at eval (webpack-internal:///./src/index.js:10:54)";
        let got: Vec<(Option<String>, String, u32, u32)> =
            stack_frames(stack).into_iter().map(|f| (f.function, f.url, f.line, f.column)).collect();
        assert_eq!(
            got,
            vec![
                (Some("explode".into()), "webpack-internal:///./src/util.js".into(), 15, 9),
                (Some("Page".into()), "webpack-internal:///(app-pages-browser)/./src/app/page.js".into(), 12, 9),
                (Some("eval".into()), "webpack-internal:///./src/index.js".into(), 10, 54),
            ]
        );
    }

    #[test]
    fn a_location_is_its_script_position() {
        let f = location_frame("http://localhost:3000/main.js:1:20931").expect("a frame");
        assert_eq!((f.url.as_str(), f.line, f.column), ("http://localhost:3000/main.js", 1, 20931));
        let f = location_frame("http://localhost:3000/a.js:4:2 (eval <anonymous>:1:9)").expect("eval's call site");
        assert_eq!((f.url.as_str(), f.line, f.column), ("http://localhost:3000/a.js", 4, 2));
        assert_eq!(location_frame("<anonymous>"), None);
        let callers = caller_frames("<anonymous>:372:16\nhttp://localhost:3000/a.js:4:2");
        assert_eq!(callers.iter().map(|f| f.at.as_str()).collect::<Vec<_>>(), ["http://localhost:3000/a.js:4:2"]);
    }
}
