//! Finds libactq with the `pkg-config` program (not the pkg-config crate: the crate has no
//! dependencies), exactly as C users do: `pkg-config --libs --cflags actq`. Point
//! PKG_CONFIG_PATH at `<prefix>/lib/pkgconfig` for an install outside the default paths.
use std::process::Command;

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_LIBDIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG");

    let pkg_config = std::env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".to_string());
    let output = match Command::new(&pkg_config).args(["--libs", "--cflags", "actq"]).output() {
        Ok(output) => output,
        Err(e) => panic!("actq: cannot run `{} --libs --cflags actq`: {}", pkg_config, e),
    };
    if !output.status.success() {
        panic!(
            "actq: `{} --libs --cflags actq` failed (is libactq installed, and PKG_CONFIG_PATH \
             set to its lib/pkgconfig?):\n{}",
            pkg_config,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    let flags = String::from_utf8(output.stdout).expect("pkg-config printed non-UTF-8 flags");
    let mut includes = Vec::new();
    for flag in flags.split_whitespace() {
        if let Some(dir) = flag.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={}", dir);
        } else if let Some(lib) = flag.strip_prefix("-l") {
            println!("cargo:rustc-link-lib={}", lib);
        } else if let Some(dir) = flag.strip_prefix("-I") {
            includes.push(dir.to_string());
        }
    }
    // For crates that `links = "actq"` depends on (DEP_ACTQ_INCLUDE), and for this crate's
    // ABI test, which compiles a C program against the same headers.
    println!("cargo:include={}", includes.join(":"));
    println!("cargo:rustc-env=ACTQ_INCLUDE_DIRS={}", includes.join(":"));
}
