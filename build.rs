// refinery embeds migrations at compile time and does not notice a new file in
// migrations/ by itself: without this line the binary would be built without it.
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
