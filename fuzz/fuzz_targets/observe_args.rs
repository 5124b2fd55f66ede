//! Arbitrary bytes as the arguments of the MCP `observe` tool: parsed or refused with a message.
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let _ = gasoline::fuzz::observe_args_bytes(data);
});
