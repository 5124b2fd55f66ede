//! MCP over stdin/stdout, with every line checked before rmcp reads it.
//!
//! rmcp's own stdio transport skips a line it cannot parse without a word to
//! the client, and answers a malformed request with an error that has no `id`.
//! Here each line of stdin goes through [`envelope::check`]: what passes is
//! handed to rmcp as it came, what does not is answered on stdout with the
//! JSON-RPC error it deserves, and rmcp's answers and those errors are written
//! to stdout whole lines at a time, never interleaved. A batch (a JSON array,
//! MCP 2025-03-26), which rmcp refuses, goes to rmcp message by message and is
//! answered with one array of the answers. A line longer than
//! [`MAX_LINE_BYTES`] is dropped as it streams in (nothing holds more than the
//! cap) and answered as an invalid request.

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;

use serde_json::Value;

use super::envelope::{self, Batch, Refusal};
use rmcp::model::ErrorCode;

/// The longest line read (as an HTTP body to `/mcp` may be).
pub const MAX_LINE_BYTES: usize = 10 * 1024 * 1024;
/// Room in each pipe between these tasks and rmcp.
const PIPE_BYTES: usize = 64 * 1024;

/// rmcp's side of the checked pipes.
pub struct Wired {
    /// What rmcp reads: the lines that passed.
    pub reader: DuplexStream,
    /// What rmcp writes: its answers, on their way to the output.
    pub writer: DuplexStream,
    /// Ends once everything for the output is written (after rmcp has dropped `writer`).
    pub written: tokio::task::JoinHandle<()>,
}

/// The pipes to serve rmcp on, wired to this process's stdin and stdout.
pub fn transport() -> Wired {
    wire(tokio::io::stdin(), tokio::io::stdout())
}

/// rmcp's pipes, wired to `input` and `output` through the checks.
pub fn wire(
    input: impl tokio::io::AsyncRead + Send + Unpin + 'static,
    output: impl AsyncWrite + Send + Unpin + 'static,
) -> Wired {
    let (reader, to_rmcp) = tokio::io::duplex(PIPE_BYTES);
    let (from_rmcp, writer) = tokio::io::duplex(PIPE_BYTES);
    let (say, said) = mpsc::unbounded_channel();
    tokio::spawn(read_input(BufReader::new(input), to_rmcp, say));
    let written = tokio::spawn(write_output(BufReader::new(from_rmcp), said, output));
    Wired { reader, writer, written }
}

/// One line of input, or a line that was over the cap.
enum Line {
    Text(Vec<u8>),
    TooLong,
}

/// Reads the next line (without its newline), keeping at most `MAX_LINE_BYTES`; None at the end.
async fn next_line(input: &mut (impl AsyncBufRead + Unpin)) -> std::io::Result<Option<Line>> {
    let mut line = Vec::new();
    let mut too_long = false;
    loop {
        let available = input.fill_buf().await?;
        if available.is_empty() {
            // The end: a last line without a newline still counts.
            return Ok(match (too_long, line.is_empty()) {
                (true, _) => Some(Line::TooLong),
                (false, true) => None,
                (false, false) => Some(Line::Text(line)),
            });
        }
        let (chunk, ended) = match available.iter().position(|&b| b == b'\n') {
            Some(at) => (&available[..at], Some(at + 1)),
            None => (available, None),
        };
        if !too_long && line.len() + chunk.len() <= MAX_LINE_BYTES {
            line.extend_from_slice(chunk);
        } else {
            too_long = true;
            line = Vec::new();
        }
        let used = ended.unwrap_or(available.len());
        input.consume(used);
        if ended.is_some() {
            return Ok(Some(if too_long { Line::TooLong } else { Line::Text(line) }));
        }
    }
}

/// What the input side hands the output side.
enum Out {
    /// A refusal, one line.
    Line(String),
    /// A batch on its way to rmcp: the ids whose answers it waits for, and the answers it has.
    Batch { waiting: Vec<Value>, answers: Vec<Value> },
}

async fn read_input(mut input: impl AsyncBufRead + Unpin, mut to_rmcp: DuplexStream, out: mpsc::UnboundedSender<Out>) {
    // MCP lets either side ping before initialization, and a ping must be answered; rmcp refuses
    // anything before `initialize`, so such a ping is answered here. A notification or a response
    // before `initialize` (a client's `initialized` sent too early, a stray `cancelled`) needs no
    // answer, and rmcp would end the whole process on it, the HTTP ingest it serves beside
    // included: such a message is dropped here.
    let mut initialized = false;
    loop {
        let line = match next_line(&mut input).await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                tracing::warn!("reading stdin failed: {e}");
                break;
            }
        };
        let text = match line {
            Line::Text(mut text) => {
                if text.last() == Some(&b'\r') {
                    text.pop();
                }
                if text.iter().all(u8::is_ascii_whitespace) {
                    continue; // blank lines between messages are nothing
                }
                text
            }
            Line::TooLong => {
                let refusal = Refusal {
                    id: None,
                    method: None,
                    code: ErrorCode::INVALID_REQUEST,
                    message: format!("message over {} MiB: send smaller messages", MAX_LINE_BYTES >> 20),
                };
                if out.send(Out::Line(refusal.to_line())).is_err() {
                    break;
                }
                continue;
            }
        };
        // Half an emoji costs that character, not the message (as over HTTP: http/mcp_gate.rs).
        let text = crate::surrogates::mended(text);
        let (forward, said) = match envelope::batch(&text) {
            Some(items) => {
                // Announced before rmcp sees any of it, so its answers are known for the batch's.
                let Batch { mut forward, waiting, answers } = Batch::of(items);
                if !initialized {
                    forward.retain(|item| matches!(envelope::check(item), Ok(envelope::Message::Request { .. })));
                }
                let said = (!waiting.is_empty() || !answers.is_empty()).then_some(Out::Batch { waiting, answers });
                (forward, said)
            }
            // A request of the stateless revision (its version in `_meta`) has that revision's
            // methods: no initialize, no ping (as over HTTP).
            None => {
                match if names_its_protocol(&text) { envelope::check_stateless(&text) } else { envelope::check(&text) }
                {
                    Ok(envelope::Message::Request { method, id }) if method == "ping" && !initialized => {
                        let pong = serde_json::json!({ "jsonrpc": "2.0", "id": id, "result": {} });
                        (Vec::new(), Some(Out::Line(pong.to_string())))
                    }
                    Ok(envelope::Message::Request { method, id })
                        if !initialized && method != "initialize" && !names_its_protocol(&text) =>
                    {
                        // rmcp would take it for a request of the stateless draft protocol and ask for
                        // `_meta` fields the client has never heard of: say what MCP's lifecycle wants.
                        let why = "send initialize first: an MCP session starts with it (ping is answered before it)";
                        (Vec::new(), Some(out_of_turn(id, method, why)))
                    }
                    Ok(envelope::Message::Request { method, id }) if initialized && method == "initialize" => {
                        // A session is initialized once: rmcp would negotiate again, and a version it
                        // does not know would leave the session half in another revision.
                        let why = "already initialized: a session is initialized once; start gasoline mcp again for a new one";
                        (Vec::new(), Some(out_of_turn(id, method, why)))
                    }
                    Ok(envelope::Message::Request { method, .. }) => {
                        initialized |= method == "initialize";
                        (vec![text], None)
                    }
                    Ok(_) if !initialized => {
                        tracing::debug!("dropped a notification or response sent before initialize");
                        (Vec::new(), None)
                    }
                    Ok(_) => (vec![text], None),
                    Err(refusal) => {
                        tracing::debug!("refused a message on stdin: {}", refusal.message);
                        (Vec::new(), Some(Out::Line(refusal.to_line())))
                    }
                }
            }
        };
        if let Some(said) = said
            && out.send(said).is_err()
        {
            break;
        }
        for mut message in forward {
            message.push(b'\n');
            if to_rmcp.write_all(&message).await.is_err() {
                return; // rmcp has stopped
            }
        }
    }
    // Dropping the pipe tells rmcp that stdin has ended.
}

/// The refusal of a request sent out of turn in MCP's lifecycle (before `initialize`, or a second one).
fn out_of_turn(id: Value, method: String, why: &str) -> Out {
    let refusal = Refusal { id: Some(id), method: Some(method), code: ErrorCode::INVALID_REQUEST, message: why.into() };
    Out::Line(refusal.to_line())
}

/// Whether a request names its protocol version in `params._meta`, as the stateless draft of MCP
/// has clients do instead of initializing.
fn names_its_protocol(text: &[u8]) -> bool {
    serde_json::from_slice::<Value>(text)
        .is_ok_and(|v| v["params"]["_meta"].get("io.modelcontextprotocol/protocolVersion").is_some())
}

/// Batches whose answers are still coming, oldest first.
#[derive(Default)]
struct Pending(Vec<(Vec<Value>, Vec<Value>)>);

impl Pending {
    /// Takes rmcp's answer `line` into the batch waiting for its id; the batch's whole answer
    /// once it is complete. None: the line is not a batch's and goes out as it is.
    fn take(&mut self, line: &[u8]) -> Option<Option<String>> {
        if self.0.is_empty() {
            return None;
        }
        let id = envelope::answer_id(line)?;
        let at = self.0.iter().position(|(waiting, _)| waiting.contains(&id))?;
        let (waiting, answers) = &mut self.0[at];
        waiting.retain(|w| w != &id);
        answers.push(serde_json::from_slice(line).unwrap_or(Value::Null));
        if !waiting.is_empty() {
            return Some(None);
        }
        let (_, answers) = self.0.remove(at);
        Some(Some(Value::Array(answers).to_string()))
    }
}

async fn write_output(
    mut from_rmcp: impl AsyncBufRead + Unpin,
    mut said: mpsc::UnboundedReceiver<Out>,
    mut output: impl AsyncWrite + Unpin,
) {
    let mut pending = Pending::default();
    // rmcp's line so far: read_until keeps what it read when the other branch wins, and the
    // next call goes on from there, so a line is written only once it is whole.
    let mut line = Vec::new();
    loop {
        let whole = tokio::select! {
            // What the input side said first: a batch is announced before rmcp can answer it.
            biased;
            Some(out) = said.recv() => match out {
                Out::Line(text) => text,
                Out::Batch { waiting, answers } if waiting.is_empty() => Value::Array(answers).to_string(),
                Out::Batch { waiting, answers } => {
                    pending.0.push((waiting, answers));
                    continue;
                }
            },
            read = from_rmcp.read_until(b'\n', &mut line) => match read {
                Ok(0) | Err(_) => break, // rmcp has stopped
                Ok(_) => {
                    let text = std::mem::take(&mut line);
                    match pending.take(&text) {
                        None => String::from_utf8_lossy(&text).trim_end().to_owned(),
                        Some(None) => continue,
                        Some(Some(answer)) => answer,
                    }
                }
            },
        };
        if output.write_all(format!("{whole}\n").as_bytes()).await.is_err() || output.flush().await.is_err() {
            return;
        }
    }
    // What was refused while rmcp was stopping is still answered, and a batch rmcp left
    // unfinished gets the answers it has.
    let mut last = Vec::new();
    while let Ok(out) = said.try_recv() {
        match out {
            Out::Line(text) => last.push(text),
            Out::Batch { answers, .. } if !answers.is_empty() => last.push(Value::Array(answers).to_string()),
            Out::Batch { .. } => {}
        }
    }
    last.extend(pending.0.into_iter().filter(|(_, a)| !a.is_empty()).map(|(_, a)| Value::Array(a).to_string()));
    for text in last {
        if output.write_all(format!("{text}\n").as_bytes()).await.is_err() {
            return;
        }
    }
    let _ = output.flush().await;
}

#[cfg(test)]
mod tests {
    use super::*;
    use tokio::io::AsyncReadExt;

    async fn lines_of(text: &[u8]) -> Vec<Vec<u8>> {
        let mut input = BufReader::with_capacity(7, text);
        let mut out = Vec::new();
        while let Some(line) = next_line(&mut input).await.unwrap() {
            out.push(match line {
                Line::Text(t) => t,
                Line::TooLong => b"<too long>".to_vec(),
            });
        }
        out
    }

    #[tokio::test]
    async fn lines_are_split_on_newlines_across_reads() {
        let got = lines_of(b"one\ntwo two two\n\nlast").await;
        assert_eq!(got, vec![b"one".to_vec(), b"two two two".to_vec(), b"".to_vec(), b"last".to_vec()]);
    }

    #[tokio::test]
    async fn a_line_over_the_cap_is_one_refusal_and_the_next_line_reads_whole() {
        let mut text = vec![b'x'; MAX_LINE_BYTES + 10];
        text.extend_from_slice(b"\nafter\n");
        let got = lines_of(&text).await;
        assert_eq!(got, vec![b"<too long>".to_vec(), b"after".to_vec()]);
    }

    #[tokio::test]
    async fn good_lines_reach_rmcp_and_bad_ones_are_answered_on_the_output() {
        let init = r#"{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"c","version":"1"}}}"#;
        let input = format!("{init}\nnot json\n\n").into_bytes();
        let (client_out, mut answers) = tokio::io::duplex(4096);
        let Wired { mut reader, writer, written: done } = wire(std::io::Cursor::new(input), client_out);
        let mut seen = String::new();
        reader.read_to_string(&mut seen).await.unwrap();
        assert_eq!(seen, format!("{init}\n"));
        drop(writer); // rmcp stops: the output ends after what it had
        done.await.unwrap();
        let mut written = String::new();
        answers.read_to_string(&mut written).await.unwrap();
        let answer: serde_json::Value = serde_json::from_str(written.trim()).unwrap();
        assert_eq!((answer["id"].clone(), answer["error"]["code"].clone()), (serde_json::Value::Null, (-32700).into()));
    }
}
