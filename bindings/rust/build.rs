//! Finds libactq with the `pkg-config` program (not the pkg-config crate: the crate has no
//! dependencies), exactly as C users do: `pkg-config --libs --cflags actq`. Point
//! PKG_CONFIG_PATH at `<prefix>/lib/pkgconfig` for an install outside the default paths.
//!
//! Static linking (a libactq.a from `-DBUILD_SHARED_LIBS=OFF`): the feature `static` or
//! `ACTQ_STATIC=1` links `static=actq` plus the private libraries of
//! `pkg-config --static --libs actq`; `ACTQ_STATIC=0` forces the shared library. Unset, the
//! static archive is used when pkg-config's libdir holds libactq.a and no libactq.so.
use std::path::Path;
use std::process::Command;

fn pkg_config(pkg_config: &str, args: &[&str]) -> String {
    let shown = format!("{} {} actq", pkg_config, args.join(" "));
    let output = match Command::new(pkg_config).args(args).arg("actq").output() {
        Ok(output) => output,
        Err(e) => panic!("actq: cannot run `{}`: {}", shown, e),
    };
    if !output.status.success() {
        panic!(
            "actq: `{}` failed (is libactq installed, and PKG_CONFIG_PATH set to its \
             lib/pkgconfig?):\n{}",
            shown,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    String::from_utf8(output.stdout).expect("pkg-config printed non-UTF-8 flags")
}

fn main() {
    println!("cargo:rerun-if-changed=build.rs");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_PATH");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG_LIBDIR");
    println!("cargo:rerun-if-env-changed=PKG_CONFIG");
    println!("cargo:rerun-if-env-changed=ACTQ_STATIC");

    let pkg = std::env::var("PKG_CONFIG").unwrap_or_else(|_| "pkg-config".to_string());
    let forced = std::env::var("ACTQ_STATIC").ok().filter(|v| !v.is_empty());
    let link_static = if std::env::var_os("CARGO_FEATURE_STATIC").is_some() {
        true
    } else {
        match forced.as_deref() {
            Some("0") | Some("false") | Some("no") | Some("off") => false,
            Some(_) => true,
            None => {
                let libdir = pkg_config(&pkg, &["--variable=libdir"]);
                let libdir = Path::new(libdir.trim());
                libdir.join("libactq.a").exists() && !libdir.join("libactq.so").exists()
            }
        }
    };
    let flags = if link_static {
        pkg_config(&pkg, &["--static", "--libs", "--cflags"])
    } else {
        pkg_config(&pkg, &["--libs", "--cflags"])
    };
    let mut includes = Vec::new();
    for flag in flags.split_whitespace() {
        if let Some(dir) = flag.strip_prefix("-L") {
            println!("cargo:rustc-link-search=native={}", dir);
        } else if let Some(lib) = flag.strip_prefix("-l") {
            if link_static && lib == "actq" {
                println!("cargo:rustc-link-lib=static=actq");
            } else {
                println!("cargo:rustc-link-lib={}", lib);
            }
        } else if let Some(dir) = flag.strip_prefix("-I") {
            includes.push(dir.to_string());
        } else if flag == "-pthread" {
            println!("cargo:rustc-link-lib=pthread");
        }
    }
    // For crates that `links = "actq"` depends on (DEP_ACTQ_INCLUDE, DEP_ACTQ_STATIC), and
    // for this crate's ABI test, which compiles a C program against the same headers.
    println!("cargo:include={}", includes.join(":"));
    println!("cargo:static={}", if link_static { 1 } else { 0 });
    println!("cargo:rustc-env=ACTQ_INCLUDE_DIRS={}", includes.join(":"));
}
