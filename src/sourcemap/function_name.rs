//! The original name of a minified function a stack frame is in (`c` → `checkout`), from the
//! script's own text and its map: the nearest declaration of the stack's name before the frame
//! (`function c`, `async function c`, `c=function`, `c=(…)=>{`, `c=async…=>{`) **whose body holds the
//! frame**, and the name the map gives that identifier. A body is followed by a small scanner that
//! knows strings, template literals, comments and regular expressions; where it cannot tell (an
//! arrow without braces, text it cannot follow) no name is given: a missing name is better than a
//! wrong one. Minifiers reuse short names in every scope, so a declaration that merely comes
//! before the frame (a sibling `function d` earlier in the file) names nothing. A class's method
//! (`n.checkout`: the minified class, the method's own name) is named by its class's original name
//! (`CartService.checkout`) when the frame is in that method, a member of the nearest `class n`
//! whose body holds the frame. Pure.

use sourcemap::{DecodedMap, SourceView};

/// Bytes of script before a frame searched for its function's declaration.
const WINDOW: usize = 256 * 1024;
/// Declarations of the stack's name tried, nearest first, before giving up.
const MAX_TRIED: usize = 16;
/// Longest name kept, in characters.
const MAX_NAME_CHARS: usize = 300;

/// The original name of the function the frame at `line`:`column` (1-based, UTF-16 columns) is in,
/// when the stack names it (`function`: `c`, `Object.c`, `async c`, `new c`) by a minified name
/// the map names otherwise. None when not found for certain.
pub fn original_function(
    map: &DecodedMap,
    line: u32,
    column: u32,
    function: &str,
    script: &SourceView,
) -> Option<String> {
    let called = function.rsplit(' ').next()?;
    let minified = called.rsplit('.').next().filter(|n| is_identifier(n))?;
    let source = script.source();
    let frame = byte_offset(source, line.checked_sub(1)?, column.checked_sub(1)?)?;
    let mut from = frame.saturating_sub(WINDOW);
    while !source.is_char_boundary(from) {
        from += 1;
    }
    let original = match declared_function(map, source, from, frame, minified) {
        Found::Name(name) => name,
        Found::Unsure => return None,
        Found::Nothing => {
            let class = called.rsplit_once('.').map(|(class, _)| class).filter(|c| is_identifier(c))?;
            class_method(map, source, from, frame, class, minified)?
        }
    };
    Some(original.chars().take(MAX_NAME_CHARS).collect())
}

/// What a search for the function around a frame found.
enum Found {
    Name(String),
    /// A candidate whose extent or name cannot be told: no name, and no other search.
    Unsure,
    Nothing,
}

/// The original name of the function declared as `minified` whose body holds `frame`.
fn declared_function(map: &DecodedMap, source: &str, from: usize, frame: usize, minified: &str) -> Found {
    let mut end = frame;
    // Each declaration tried is followed to the frame: a bounded number of them (minifiers reuse
    // `e` in every scope), so a hostile or huge script costs at most that many window scans.
    for _ in 0..MAX_TRIED {
        let Some(at) = last_declaration(&source[from..end], minified).map(|i| from + i) else { break };
        end = at;
        match holds(source, at + minified.len(), frame) {
            Some(true) => {
                return match mapped_name(map, source, at).filter(|n| n != minified) {
                    Some(name) => Found::Name(name),
                    None => Found::Unsure,
                };
            }
            Some(false) => continue, // a function of that name that ended before the frame
            None => return Found::Unsure,
        }
    }
    Found::Nothing
}

/// `Class.method` with the original class name, for a frame in method `method` of the nearest
/// `class minified_class` whose body holds it (the method a member of that class's body itself).
fn class_method(
    map: &DecodedMap,
    source: &str,
    from: usize,
    frame: usize,
    class: &str,
    method: &str,
) -> Option<String> {
    let mut end = frame;
    for _ in 0..MAX_TRIED {
        let at = last_class(&source[from..end], class).map(|i| from + i)?;
        end = at;
        let brace = match class_body(source, at + class.len(), frame)? {
            Some(brace) => brace,
            None => continue, // a class of that name that ended before the frame
        };
        let method_at = member_method(source, brace, frame, method)?;
        // `c=class e{`: the class's own name `e` is a bundler's inner binding (esbuild names it
        // `_CartService`); the source's name is the one assigned.
        let class_name = assigned_to(source, at)
            .and_then(|a| mapped_name(map, source, a))
            .or_else(|| mapped_name(map, source, at))?;
        let method_name = mapped_name(map, source, method_at).unwrap_or_else(|| method.to_owned());
        if class_name == class && method_name == method {
            return None; // the stack's name is the original already
        }
        return Some(format!("{class_name}.{method_name}"));
    }
    None
}

/// The name the map gives the identifier that begins at byte `at`, when a mapping begins there.
fn mapped_name(map: &DecodedMap, source: &str, at: usize) -> Option<String> {
    let (line, col) = position_of(source, at);
    let token = map.lookup_token(line, col)?;
    if token.get_dst() != (line, col) {
        return None;
    }
    token.get_name().filter(|n| !n.is_empty()).map(str::to_owned)
}

/// Where the last class declaration of `name` in `text` names it: `class name`, `name=class`.
fn last_class(text: &str, name: &str) -> Option<usize> {
    last_named(text, name, |head, tail| {
        let declared =
            head.trim_end().strip_suffix("class").is_some_and(|before| !before.ends_with(is_identifier_char));
        let assigned = tail.trim_start().strip_prefix('=').is_some_and(|value| {
            value.trim_start().strip_prefix("class").is_some_and(|rest| !rest.starts_with(is_identifier_char))
        });
        declared || assigned
    })
}

/// Where the last whole-word `name` in `text` is, whose text before and after it (`head`,
/// `tail`) make it what `wanted` looks for.
fn last_named(text: &str, name: &str, wanted: impl Fn(&str, &str) -> bool) -> Option<usize> {
    let mut end = text.len();
    while let Some(at) = text[..end].rfind(name) {
        end = at;
        let (head, tail) = (&text[..at], &text[at + name.len()..]);
        if head.ends_with(is_identifier_char) || tail.starts_with(is_identifier_char) {
            continue;
        }
        if wanted(head, tail) {
            return Some(at);
        }
    }
    None
}

/// In `c=class e{`, where `c` begins, given where `e` does.
fn assigned_to(source: &str, at: usize) -> Option<usize> {
    let head = source[..at].trim_end().strip_suffix("class")?.trim_end().strip_suffix('=')?.trim_end();
    let start = head.trim_end_matches(is_identifier_char).len();
    (start < head.len()).then_some(start)
}

/// The class declared by the name ending at byte `after`: Some(Some(its `{`)) when its body is
/// open at `frame`, Some(None) when it ended before, None when that cannot be told.
fn class_body(source: &str, after: usize, frame: usize) -> Option<Option<usize>> {
    let mut scan = Scanner { text: source.as_bytes(), at: after, last: b'(', nested: false, depth: 0 };
    // Past `=class` and a class expression's own name, then `extends` and its expression.
    scan.skip_space();
    if scan.peek() == Some(b'=') {
        scan.at += 1;
        scan.skip_space();
        scan.word("class");
        scan.skip_space();
        let name = scan.at;
        if scan.identifier() && &source.as_bytes()[name..scan.at] == b"extends" {
            scan.at = name; // no name of its own
        }
    }
    scan.skip_space();
    let start = scan.at;
    scan.word("extends");
    if scan.at > start {
        // A name, a member chain or a call: `extends o.Component`, `extends (0,r.mixin)(x)`.
        loop {
            scan.skip_space();
            match scan.peek()? {
                b'{' => break,
                b'(' => scan.matching(b')', frame)?,
                b'.' => scan.at += 1,
                _ if scan.identifier() => {}
                _ => return None,
            }
        }
    }
    if scan.peek() != Some(b'{') || scan.at >= frame {
        return None;
    }
    let brace = scan.at;
    match scan.matching(b'}', frame) {
        Some(()) => Some(None),
        None if scan.at >= frame => Some(Some(brace)),
        None => None,
    }
}

/// Where the method `name` of the class body opening at `brace` is named, when the frame is in
/// its body (in no function inside it) and it is a member of that class body itself.
fn member_method(source: &str, brace: usize, frame: usize, name: &str) -> Option<usize> {
    let body = &source[brace..frame];
    let mut end = body.len();
    for _ in 0..MAX_TRIED {
        let at = brace + body[..end].rfind(name)?;
        end = at - brace;
        let (head, tail) = (&source[brace..at], &source[at + name.len()..frame]);
        if head.ends_with(is_identifier_char)
            || tail.starts_with(is_identifier_char)
            || !tail.trim_start().starts_with('(')
        {
            continue;
        }
        // A member begins after `{`, `}`, `;`, or `static`, `async`, `get`, `set`, `*`.
        let head = head.trim_end();
        let member = head.ends_with(['{', '}', ';', '*'])
            || ["static", "async", "get", "set"]
                .iter()
                .any(|w| head.strip_suffix(w).is_some_and(|before| !before.ends_with(is_identifier_char)));
        if !member {
            continue;
        }
        match holds(source, at + name.len(), frame) {
            Some(true) => {}
            Some(false) => continue, // a method of that name that ended before the frame
            None => return None,
        }
        // The class's own member: the class body alone is open where it begins.
        let mut scan = Scanner { text: source.as_bytes(), at: brace, last: b'(', nested: false, depth: 0 };
        return match scan.matching(b'}', at) {
            None if scan.at >= at && scan.depth == 1 && !scan.nested => Some(at),
            _ => None,
        };
    }
    None
}

fn is_identifier(name: &str) -> bool {
    let mut chars = name.chars();
    chars.next().is_some_and(|c| c == '_' || c == '$' || c.is_alphabetic()) && chars.all(is_identifier_char)
}

fn is_identifier_char(c: char) -> bool {
    c == '_' || c == '$' || c.is_alphanumeric()
}

/// The byte offset of 0-based `line` and UTF-16 `col` in `source`.
fn byte_offset(source: &str, line: u32, col: u32) -> Option<usize> {
    let start = if line == 0 { 0 } else { source.match_indices('\n').nth(line as usize - 1)?.0 + 1 };
    let text = &source[start..];
    let mut units = 0u32;
    for (i, c) in text.char_indices() {
        if units >= col || c == '\n' {
            return (units >= col).then_some(start + i);
        }
        units += c.len_utf16() as u32;
    }
    (units >= col).then_some(source.len())
}

/// The 0-based line and UTF-16 column of byte `at`.
fn position_of(source: &str, at: usize) -> (u32, u32) {
    let before = &source[..at];
    let line = before.matches('\n').count() as u32;
    let line_start = before.rfind('\n').map_or(0, |n| n + 1);
    (line, before[line_start..].encode_utf16().count() as u32)
}

/// Where the last declaration of `name` in `text` names it: `function name`, `function* name`,
/// `name=function`, `name=(`, `name=async`, `name=x=>`.
fn last_declaration(text: &str, name: &str) -> Option<usize> {
    last_named(text, name, |head, tail| {
        let head = head.trim_end();
        let keyword = head.strip_suffix('*').unwrap_or(head).trim_end();
        let declared = keyword.strip_suffix("function").is_some_and(|before| !before.ends_with(is_identifier_char));
        let assigned = tail.trim_start().strip_prefix('=').is_some_and(|value| {
            let value = value.trim_start();
            !value.starts_with('=')
                && (value.starts_with("function") || value.starts_with('(') || value.starts_with("async") || {
                    let ident: String = value.chars().take_while(|c| is_identifier_char(*c)).collect();
                    !ident.is_empty() && value[ident.len()..].trim_start().starts_with("=>")
                })
        });
        declared || assigned
    })
}

/// Whether the function declared by the name ending at byte `after` holds byte `frame` in its
/// body: Some(false) when its body ends before it, None when that cannot be told (an arrow
/// without braces, text the scanner cannot follow).
fn holds(source: &str, after: usize, frame: usize) -> Option<bool> {
    let mut scan = Scanner { text: source.as_bytes(), at: after, last: b'(', nested: false, depth: 0 };
    // Past `=`, `async`, `function`, `*` and a function's own name, to its parameters: `(…)`, or
    // an arrow's one bare parameter.
    scan.skip_space();
    if scan.peek() == Some(b'=') {
        scan.at += 1;
    }
    for word in ["async", "function", "*"] {
        scan.skip_space();
        scan.word(word);
    }
    scan.skip_space();
    let named = scan.identifier();
    scan.skip_space();
    if scan.peek() == Some(b'(') {
        scan.matching(b')', frame)?;
    } else if !named {
        return None;
    }
    // Then the body: `{`, or `=> {` for an arrow.
    scan.skip_space();
    if scan.text.get(scan.at..scan.at + 2) == Some(b"=>") {
        scan.at += 2;
        scan.skip_space();
    }
    if scan.peek() != Some(b'{') || scan.at >= frame {
        return None;
    }
    match scan.matching(b'}', frame) {
        Some(()) => Some(false), // closed before the frame
        // Still open at the frame, and the frame in no function inside it (an object's property
        // arrow named with the same letter, a callback): then it is this one's.
        None if scan.at >= frame && !scan.nested => Some(true),
        None => None, // in a function inside, or text the scanner could not follow
    }
}

/// A forward scan of JavaScript text that skips strings, template literals, comments and regular
/// expressions, to match brackets.
struct Scanner<'a> {
    text: &'a [u8],
    at: usize,
    /// The last significant byte, to tell a regular expression's `/` from a division.
    last: u8,
    /// After [`Scanner::matching`] reached its limit: whether a function that opened inside the
    /// bracket (an arrow, a `function`, a method) was still open there.
    nested: bool,
    /// After [`Scanner::matching`] reached its limit: how many brackets were open there (1: only
    /// the first).
    depth: usize,
}

/// Keywords whose `(…)` is followed by a block, not a function's body.
const BLOCK_KEYWORDS: [&[u8]; 6] = [b"if", b"for", b"while", b"switch", b"catch", b"with"];

/// What a `(` follows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Paren {
    /// `function name(` or `function(`: its `{` opens a body.
    Function,
    /// `if (`, `for (`…: its `{` opens a block.
    Keyword,
    /// `name(`: a call, or a method's parameters when a `{` follows.
    Named,
    /// Anything else: `(a, b)` of an arrow (its `=>` says so) or a grouping.
    Group,
}

/// A function open inside the body being followed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Inner {
    Arrow,
    Body,
}

impl Scanner<'_> {
    fn peek(&self) -> Option<u8> {
        self.text.get(self.at).copied()
    }

    /// Past `word` when it comes next as a whole word.
    fn word(&mut self, word: &str) {
        let end = self.at + word.len();
        let next_is_part = self.text.get(end).is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$');
        if self.text.get(self.at..end) == Some(word.as_bytes()) && (word == "*" || !next_is_part) {
            self.at = end;
        }
    }

    /// Past an identifier; whether there was one.
    fn identifier(&mut self) -> bool {
        let start = self.at;
        while self
            .text
            .get(self.at)
            .is_some_and(|b| b.is_ascii_alphanumeric() || *b == b'_' || *b == b'$' || *b >= 0x80)
        {
            self.at += 1;
        }
        self.at > start
    }

    fn skip_space(&mut self) {
        while self.text.get(self.at).is_some_and(u8::is_ascii_whitespace) {
            self.at += 1;
        }
    }

    /// From the bracket at `self.at` to just past its matching `close`: Some(()) when it closes
    /// before `limit`; None when `limit` comes first (`self.at` then at or past it) or the text
    /// cannot be followed (`self.at` before it). On the way it follows the functions that open
    /// inside (arrows, `function`s, methods): `self.nested` says whether one is still open at `limit`.
    fn matching(&mut self, close: u8, limit: usize) -> Option<()> {
        let mut depth = 0usize;
        let mut templates: Vec<usize> = Vec::new(); // depth at each `${` of a template being read
        // Functions open inside, with the depth they began at.
        let mut inner: Vec<(usize, Inner)> = Vec::new();
        let mut parens: Vec<Paren> = Vec::new();
        let mut closed = Paren::Group; // what the last `)` closed
        let mut word: Option<&[u8]> = None; // the identifier just before, if the last token was one
        let mut function_keyword = false; // `function` seen, its `(` not yet
        while self.at < limit {
            let c = *self.text.get(self.at)?;
            match c {
                b'"' | b'\'' => self.string(c)?,
                b'`' => {
                    if self.template()? {
                        templates.push(depth);
                        depth += 1;
                    }
                }
                b'/' if self.text.get(self.at + 1) == Some(&b'/') => {
                    while self.text.get(self.at).is_some_and(|b| *b != b'\n') {
                        self.at += 1;
                    }
                    continue;
                }
                b'/' if self.text.get(self.at + 1) == Some(&b'*') => {
                    let rest = self.text.get(self.at + 2..)?;
                    let end = rest.windows(2).position(|w| w == b"*/")?;
                    self.at += 2 + end + 2;
                    continue;
                }
                b'/' if b"(,=:[!&|?{};+-*%<>~^".contains(&self.last) || self.last == b'\n' => self.regex()?,
                c if c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c >= 0x80 => {
                    let start = self.at;
                    self.identifier();
                    let w = &self.text[start..self.at];
                    function_keyword |= w == b"function";
                    word = Some(w);
                    self.last = b'a';
                    continue;
                }
                _ => {
                    let previous_word = word.take();
                    if c == b'}' && depth > 0 && templates.last() == Some(&(depth - 1)) {
                        // The end of a template's `${…}`: back into the template.
                        depth -= 1;
                        templates.pop();
                        self.at += 1;
                        if self.template_rest()? {
                            templates.push(depth);
                            depth += 1;
                        }
                        self.last = b'`';
                        continue;
                    }
                    if c == b'=' && self.text.get(self.at + 1) == Some(&b'>') {
                        inner.push((depth, Inner::Arrow));
                        self.at += 2;
                        self.last = b'>';
                        continue;
                    }
                    let opens = c == b'{' || c == b'(' || c == b'[';
                    let closes = c == b'}' || c == b')' || c == b']';
                    if c == b'(' {
                        parens.push(match previous_word {
                            _ if function_keyword => Paren::Function,
                            Some(w) if BLOCK_KEYWORDS.contains(&w) => Paren::Keyword,
                            Some(_) => Paren::Named,
                            None => Paren::Group,
                        });
                        function_keyword = false;
                    } else if c == b')' {
                        closed = parens.pop().unwrap_or(Paren::Group);
                    } else if c == b'{' && self.last == b')' && matches!(closed, Paren::Function | Paren::Named) {
                        inner.push((depth, Inner::Body)); // a `function`'s or a method's body
                    }
                    if c == b',' || c == b';' {
                        // An arrow's body ends at a comma or semicolon of its own depth.
                        while inner.last().is_some_and(|(d, kind)| *d == depth && *kind == Inner::Arrow) {
                            inner.pop();
                        }
                    }
                    if opens {
                        depth += 1;
                    } else if closes {
                        depth = depth.checked_sub(1)?;
                        // Past the end of a body, or of the bracket an arrow sat in.
                        while inner.last().is_some_and(|(d, kind)| {
                            (*kind == Inner::Body && *d == depth) || (*kind == Inner::Arrow && *d > depth)
                        }) {
                            inner.pop();
                        }
                        if c == close && depth == 0 {
                            self.at += 1;
                            self.last = c;
                            return Some(());
                        }
                    }
                    self.at += 1;
                    if !c.is_ascii_whitespace() {
                        self.last = c;
                    }
                    continue;
                }
            }
            word = None;
            self.last = b'a'; // after a literal, a `/` divides
        }
        // The first bracket is the body itself: what opened after it is inner.
        self.nested = !inner.is_empty();
        self.depth = depth;
        None
    }

    /// Past a string opened by `quote` at `self.at`.
    fn string(&mut self, quote: u8) -> Option<()> {
        self.at += 1;
        loop {
            match *self.text.get(self.at)? {
                b'\\' => self.at += 2,
                b'\n' => return None,
                c if c == quote => {
                    self.at += 1;
                    return Some(());
                }
                _ => self.at += 1,
            }
        }
    }

    /// Past a template literal's text from its opening backtick: Some(true) when it stopped at a
    /// `${` (the expression follows), Some(false) at its closing backtick.
    fn template(&mut self) -> Option<bool> {
        self.at += 1;
        self.template_rest()
    }

    fn template_rest(&mut self) -> Option<bool> {
        loop {
            match *self.text.get(self.at)? {
                b'\\' => self.at += 2,
                b'`' => {
                    self.at += 1;
                    return Some(false);
                }
                b'$' if self.text.get(self.at + 1) == Some(&b'{') => {
                    self.at += 2;
                    self.last = b'{';
                    return Some(true);
                }
                _ => self.at += 1,
            }
        }
    }

    /// Past a regular expression literal (its class may hold a `/`), and its flags.
    fn regex(&mut self) -> Option<()> {
        self.at += 1;
        let mut class = false;
        loop {
            match *self.text.get(self.at)? {
                b'\\' => self.at += 2,
                b'\n' => return None,
                b'[' => {
                    class = true;
                    self.at += 1;
                }
                b']' => {
                    class = false;
                    self.at += 1;
                }
                b'/' if !class => {
                    self.at += 1;
                    while self.text.get(self.at).is_some_and(u8::is_ascii_alphabetic) {
                        self.at += 1;
                    }
                    return Some(());
                }
                _ => self.at += 1,
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use sourcemap::SourceMapBuilder;

    /// `code` on one line, and a map naming the identifier at each `(needle, name)`.
    fn mapped(code: &str, names: &[(&str, &str)]) -> (DecodedMap, SourceView) {
        let mut builder = SourceMapBuilder::new(None);
        let src = builder.add_source("src/app.ts");
        let mut marks: Vec<(u32, Option<&str>)> =
            names.iter().map(|(needle, name)| (code.find(needle).unwrap_or(0) as u32, Some(*name))).collect();
        marks.sort();
        for (col, name) in marks {
            let name = name.map(|n| builder.add_name(n));
            builder.add_raw(0, col, 1, 0, Some(src), name, false);
        }
        (DecodedMap::Regular(builder.into_sourcemap()), SourceView::from_string(code.to_string()))
    }

    fn name_at(map: &DecodedMap, script: &SourceView, needle: &str, function: &str) -> Option<String> {
        let at = script.source().find(needle).map_or(0, |i| i as u32 + 1);
        original_function(map, 1, at, function, script)
    }

    #[test]
    fn declarations_that_hold_the_frame_name_it() {
        let code =
            "function a(t){return t.x}async function b(e){throw new Error(e)}var c=(e)=>{a(e)},d=async()=>{throw 1};";
        let (map, script) =
            mapped(code, &[("a(t)", "readX"), ("b(e)", "loadProfile"), ("c=(", "onClick"), ("d=async", "save")]);
        assert_eq!(name_at(&map, &script, "return", "a").as_deref(), Some("readX"));
        assert_eq!(name_at(&map, &script, "throw new", "async b").as_deref(), Some("loadProfile"));
        assert_eq!(name_at(&map, &script, "a(e)}", "HTMLButtonElement.c").as_deref(), Some("onClick"));
        assert_eq!(name_at(&map, &script, "throw 1", "d").as_deref(), Some("save"));
        assert_eq!(name_at(&map, &script, "throw new", "z"), None, "no declaration of that name");
        assert_eq!(name_at(&map, &script, "throw new", "Object.<anonymous>"), None);
        assert_eq!(name_at(&map, &script, "return", "readX"), None, "no minified name: nothing to give back");
    }

    #[test]
    fn a_declaration_that_ended_before_the_frame_names_nothing() {
        // `function d` is a sibling that ended; the frame is in an object's method `d`.
        let code = "function d(){setTimeout(()=>{},1)}var g={d:(p)=>{throw p},m(p){throw p}};var m=r=>l(r);";
        let (map, script) = mapped(code, &[("d(){", "runAll"), ("m=r", "eta")]);
        assert_eq!(name_at(&map, &script, "throw p}", "Object.d"), None);
        assert_eq!(name_at(&map, &script, "throw p}}", "Object.m"), None);
        // An arrow's one bare parameter, with braces: named.
        let code = "var h=t=>{let o=t+1;throw o},u=1;";
        let (map2, script2) = mapped(code, &[("h=t", "arrowThrow")]);
        assert_eq!(name_at(&map2, &script2, "throw o", "h").as_deref(), Some("arrowThrow"));
        // An arrow without braces: where it ends cannot be told.
        assert_eq!(name_at(&map, &script, "l(r)", "m"), None);
    }

    #[test]
    fn a_frame_in_a_function_inside_the_declaration_is_not_the_declaration_s() {
        // terser names the outer function with the letter of a property inside it.
        let code = "function a(r){var n=1;return{a:r=>r.a.a,b:function(){throw n}}}function c(t){if(t){throw t}[1].map(e=>e);throw 2}";
        let (map, script) = mapped(code, &[("a(r)", "lettersFactory"), ("c(t)", "check")]);
        assert_eq!(name_at(&map, &script, "r.a.a", "Object.a"), None, "in the property arrow");
        assert_eq!(name_at(&map, &script, "throw n", "b"), None, "in the property function");
        // A block, and a callback that ended, are no function around the frame.
        assert_eq!(name_at(&map, &script, "throw t", "c").as_deref(), Some("check"));
        assert_eq!(name_at(&map, &script, "throw 2", "c").as_deref(), Some("check"));
        // A method's body is a function too.
        let code = "function m(x){var o={m(y){throw y}};return o}";
        let (map, script) = mapped(code, &[("m(x)", "outer")]);
        assert_eq!(name_at(&map, &script, "throw y", "Object.m"), None);
    }

    #[test]
    fn a_class_method_is_named_by_its_class_s_original_name() {
        let code = "class n extends o.Base{constructor(t){super(t)}static of(t){return new n(t)}get total(){return 1}async checkout(t){if(t){throw t}return[t].map(e=>e)}*items(){yield 1}}var r=class extends n{save(){throw 2}};";
        let (map, script) = mapped(code, &[("n extends", "CartService"), ("r=class", "Saver"), ("save(){", "persist")]);
        assert_eq!(name_at(&map, &script, "throw t", "n.checkout").as_deref(), Some("CartService.checkout"));
        assert_eq!(name_at(&map, &script, "throw t", "async n.checkout").as_deref(), Some("CartService.checkout"));
        assert_eq!(name_at(&map, &script, "return new", "n.of").as_deref(), Some("CartService.of"));
        assert_eq!(name_at(&map, &script, "yield", "n.items").as_deref(), Some("CartService.items"));
        // A class expression assigned to a name; the map names its method too.
        assert_eq!(name_at(&map, &script, "throw 2", "r.save").as_deref(), Some("Saver.persist"));
        // In an arrow inside the method, in another method, or a class that does not hold the frame: none.
        assert_eq!(name_at(&map, &script, "e)}", "n.checkout"), None);
        assert_eq!(name_at(&map, &script, "throw t", "n.save"), None);
        assert_eq!(name_at(&map, &script, "throw 2", "n.save"), None);
        assert_eq!(name_at(&map, &script, "throw t", "Object.checkout"), None);
    }

    #[test]
    fn an_object_s_method_inside_a_class_method_is_not_the_class_s() {
        let code = "class n{run(){var o={go(){throw 1}};return o}go(){throw 2}}";
        let (map, script) = mapped(code, &[("n{", "Runner")]);
        assert_eq!(name_at(&map, &script, "throw 1", "Object.go"), None);
        assert_eq!(name_at(&map, &script, "throw 1", "n.go"), None, "the object's go, not the class's");
        assert_eq!(name_at(&map, &script, "throw 2", "n.go").as_deref(), Some("Runner.go"));
        // A class the map does not rename: the stack's name is the original already.
        let (map, script) = mapped(code, &[("n{", "n")]);
        assert_eq!(name_at(&map, &script, "throw 2", "n.go"), None);
    }

    #[test]
    fn strings_templates_comments_and_regexes_do_not_end_a_body() {
        let code = r#"function f(a){var s="}",t=`${a+"}"}}`,r=/[}/]}/g;/* } */if(a)throw s}"#;
        let (map, script) = mapped(code, &[("f(a)", "render")]);
        assert_eq!(name_at(&map, &script, "throw s", "f").as_deref(), Some("render"));
        // A division is no regular expression: `a/2}` closes the body.
        let code = "function f(a){return a/2}function g(){throw 1}";
        let (map, script) = mapped(code, &[("f(a)", "half")]);
        assert_eq!(name_at(&map, &script, "throw 1", "f"), None);
    }
}
