//! The Lambda binaries are linked as position-dependent executables (`-no-pie`): the loader has
//! no relocations of their own to apply and no relocated pages to copy before `main`, which a
//! 14 MB binary otherwise pays on every cold start (about 0.4 ms here: docs/cold-start.md). Only
//! the binaries: tests and libraries link as usual. The price is that the binary's own code and
//! data load at a fixed address (the heap, the stack and the shared libraries are still
//! randomised). `FUNCTIONS_PIE=1` at build time links them as position-independent again, for a
//! linker that refuses `-no-pie` or an operator who prefers full randomisation.

fn main() {
    println!("cargo:rerun-if-env-changed=FUNCTIONS_PIE");
    let linux = std::env::var("CARGO_CFG_TARGET_OS").is_ok_and(|os| os == "linux");
    if linux && std::env::var_os("FUNCTIONS_PIE").is_none() {
        println!("cargo:rustc-link-arg-bins=-no-pie");
    }
}
