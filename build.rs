// refinery embeds migrations at compile time; without this, a new file in
// migrations/ would not trigger a rebuild (shared/notes/stack.md, pitfall 2).
fn main() {
    println!("cargo:rerun-if-changed=migrations");
}
