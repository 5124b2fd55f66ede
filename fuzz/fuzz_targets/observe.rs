//! Arbitrary bytes as observe arguments, run end to end against a store spanning several count-cache
//! buckets, with holes (src/fuzz.rs, ObserveFixture): every answer is
//! JSON within `max_chars`, every refusal has a message, the database never errors.
#![no_main]

use std::sync::OnceLock;

use gasoline::fuzz::ObserveFixture;
use libfuzzer_sys::fuzz_target;

static FIXTURE: OnceLock<ObserveFixture> = OnceLock::new();

fuzz_target!(|data: &[u8]| {
    let fixture = FIXTURE.get_or_init(|| ObserveFixture::new().expect("fixture store"));
    let _ = fixture.observe_bytes(data);
});
