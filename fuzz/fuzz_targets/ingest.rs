//! Arbitrary bytes as a `POST /events/{kind}` body, for every kind (and tabs, vitals),
//! under the server's limits and under tiny ones. Panics only if a decoded row breaks
//! an invariant (see `gasoline::fuzz`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|body: &[u8]| gasoline::fuzz::ingest_every_kind(body));
