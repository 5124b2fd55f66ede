//! MCP over stdin/stdout, with every line checked before rmcp reads it.
//!
//! rmcp's own stdio transport skips a line it cannot parse without a word to
//! the client, and answers a malformed request with an error that has no `id`.
//! Here each line of stdin goes through [`envelope::check`]: what passes is
//! handed to rmcp as it came, what does not is answered on stdout with the
//! JSON-RPC error it deserves, and rmcp's answers and those errors are written
//! to stdout whole lines at a time, never interleaved. A line longer than
//! [`MAX_LINE_BYTES`] is dropped as it streams in (nothing holds more than the
//! cap) and answered as an invalid request.

use tokio::io::{AsyncBufRead, AsyncBufReadExt, AsyncWrite, AsyncWriteExt, BufReader, DuplexStream};
use tokio::sync::mpsc;

use super::envelope::{self, Refusal};
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
    let (refusals, refused) = mpsc::unbounded_channel();
    tokio::spawn(read_input(BufReader::new(input), to_rmcp, refusals));
    let written = tokio::spawn(write_output(BufReader::new(from_rmcp), refused, output));
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

async fn read_input(
    mut input: impl AsyncBufRead + Unpin,
    mut to_rmcp: DuplexStream,
    refusals: mpsc::UnboundedSender<String>,
) {
    loop {
        let line = match next_line(&mut input).await {
            Ok(Some(line)) => line,
            Ok(None) => break,
            Err(e) => {
                tracing::warn!("reading stdin failed: {e}");
                break;
            }
        };
        let checked = match line {
            Line::Text(mut text) => {
                if text.last() == Some(&b'\r') {
                    text.pop();
                }
                if text.iter().all(u8::is_ascii_whitespace) {
                    continue; // blank lines between messages are nothing
                }
                envelope::check(&text).map(|_| text)
            }
            Line::TooLong => Err(Box::new(Refusal {
                id: None,
                method: None,
                code: ErrorCode::INVALID_REQUEST,
                message: format!("message over {} MiB: send smaller messages", MAX_LINE_BYTES >> 20),
            })),
        };
        match checked {
            Ok(mut text) => {
                text.push(b'\n');
                if to_rmcp.write_all(&text).await.is_err() {
                    break; // rmcp has stopped
                }
            }
            Err(refusal) => {
                tracing::debug!("refused a message on stdin: {}", refusal.message);
                if refusals.send(refusal.to_line()).is_err() {
                    break;
                }
            }
        }
    }
    // Dropping the pipe tells rmcp that stdin has ended.
}

async fn write_output(
    mut from_rmcp: impl AsyncBufRead + Unpin,
    mut refused: mpsc::UnboundedReceiver<String>,
    mut output: impl AsyncWrite + Unpin,
) {
    // rmcp's line so far: read_until keeps what it read when the other branch wins, and the
    // next call goes on from there, so a line is written only once it is whole.
    let mut line = Vec::new();
    loop {
        let whole = tokio::select! {
            read = from_rmcp.read_until(b'\n', &mut line) => match read {
                Ok(0) | Err(_) => break, // rmcp has stopped
                Ok(_) => std::mem::take(&mut line),
            },
            Some(refusal) = refused.recv() => format!("{refusal}\n").into_bytes(),
        };
        if output.write_all(&whole).await.is_err() || output.flush().await.is_err() {
            return;
        }
    }
    // What was refused while rmcp was stopping is still answered.
    while let Ok(refusal) = refused.try_recv() {
        if output.write_all(format!("{refusal}\n").as_bytes()).await.is_err() {
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
        let input: &[u8] = b"{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\nnot json\n\n";
        let (client_out, mut answers) = tokio::io::duplex(4096);
        let Wired { mut reader, writer, written: done } = wire(input, client_out);
        let mut seen = String::new();
        reader.read_to_string(&mut seen).await.unwrap();
        assert_eq!(seen, "{\"jsonrpc\":\"2.0\",\"id\":1,\"method\":\"ping\"}\n");
        drop(writer); // rmcp stops: the output ends after what it had
        done.await.unwrap();
        let mut written = String::new();
        answers.read_to_string(&mut written).await.unwrap();
        let answer: serde_json::Value = serde_json::from_str(written.trim()).unwrap();
        assert_eq!((answer["id"].clone(), answer["error"]["code"].clone()), (serde_json::Value::Null, (-32700).into()));
    }
}
