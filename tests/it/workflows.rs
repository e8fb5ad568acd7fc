//! The GitHub workflows cannot run here, so what they promise is read from
//! them, parsed as YAML: the release builds every target the install scripts
//! and the README name, on a pushed tag, and attaches the installers and the
//! static site, which it publishes to GitHub Pages; CI runs `cargo test
//! --locked` on Linux, macOS and Windows.

use std::path::Path;
use yaml_rust2::{Yaml, YamlLoader};

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The five targets a release ships.
const TARGETS: [&str; 5] = [
    "x86_64-unknown-linux-gnu",
    "x86_64-unknown-linux-musl",
    "x86_64-apple-darwin",
    "aarch64-apple-darwin",
    "x86_64-pc-windows-msvc",
];

fn read(path: &str) -> String {
    std::fs::read_to_string(Path::new(ROOT).join(path)).expect(path)
}

fn workflow(name: &str) -> Yaml {
    let path = format!(".github/workflows/{name}");
    let mut docs =
        YamlLoader::load_from_str(&read(&path)).unwrap_or_else(|e| panic!("{path}: {e}"));
    assert_eq!(docs.len(), 1, "{path}: one document");
    docs.remove(0)
}

/// The strings of a YAML list.
fn strings(list: &Yaml) -> Vec<&str> {
    list.as_vec().map(|v| v.iter().filter_map(Yaml::as_str).collect()).unwrap_or_default()
}

/// Every step's `run` command of a job.
fn runs(job: &Yaml) -> Vec<&str> {
    job["steps"].as_vec().expect("steps").iter().filter_map(|s| s["run"].as_str()).collect()
}

#[test]
fn the_release_builds_every_target_on_a_pushed_tag() {
    let release = workflow("release.yml");
    assert!(!strings(&release["on"]["push"]["tags"]).is_empty(), "runs on a pushed tag");
    let build = &release["jobs"]["build"];
    let include = build["strategy"]["matrix"]["include"].as_vec().expect("matrix.include");
    let built: Vec<(&str, &str)> = include
        .iter()
        .map(|leg| (leg["target"].as_str().expect("target"), leg["os"].as_str().expect("os")))
        .collect();
    for target in TARGETS {
        let os = built.iter().find(|(t, _)| *t == target).map(|(_, os)| *os);
        let os = os.unwrap_or_else(|| panic!("{target} is not built: {built:?}"));
        let family = if target.contains("linux") {
            "ubuntu"
        } else if target.contains("apple") {
            "macos"
        } else {
            "windows"
        };
        assert!(os.starts_with(family), "{target} is built on {os}");
    }
    assert_eq!(built.len(), TARGETS.len(), "{built:?}");
    let steps = runs(build);
    assert!(steps.iter().any(|r| r.contains("cargo build --locked --profile dist")), "{steps:?}");
    assert!(steps.iter().any(|r| r.contains("dist/package.sh")), "{steps:?}");
}

#[test]
fn the_release_attaches_both_install_scripts_for_its_own_download_folder() {
    let release = workflow("release.yml");
    let job = &release["jobs"]["release"];
    assert_eq!(strings(&job["needs"]), ["build", "site"]);
    let script = runs(job).join("\n");
    for (source, attached) in
        [("dist/install.sh", "tictac-installer.sh"), ("dist/install.ps1", "tictac-installer.ps1")]
    {
        assert!(script.contains(source) && script.contains(attached), "{attached}: {script}");
        assert!(read(source).contains("@DOWNLOAD_URL@"), "{source} has no folder to fill in");
    }
    assert!(script.contains("releases/download/${{ github.ref_name }}"), "{script}");
    assert!(script.contains("gh release create"), "{script}");
}

#[test]
fn every_archive_an_install_script_fetches_is_released() {
    for (script, targets) in
        [("dist/install.sh", &TARGETS[1..4]), ("dist/install.ps1", &TARGETS[4..])]
    {
        let text = read(script);
        for target in targets {
            assert!(text.contains(target), "{script} does not install {target}");
        }
    }
    assert!(!read("dist/install.sh").contains(TARGETS[0]), "Linux installs the static binary");
}

#[test]
fn ci_tests_on_linux_macos_and_windows() {
    let ci = workflow("ci.yml");
    let test = &ci["jobs"]["test"];
    let systems = strings(&test["strategy"]["matrix"]["os"]);
    for family in ["ubuntu", "macos", "windows"] {
        assert!(systems.iter().any(|os| os.starts_with(family)), "no {family} in {systems:?}");
    }
    assert_eq!(test["runs-on"].as_str(), Some("${{ matrix.os }}"));
    let steps = runs(test);
    assert!(steps.iter().any(|r| r.contains("cargo test --locked")), "{steps:?}");
}

#[test]
fn the_readme_says_how_to_install_on_every_platform() {
    let readme = read("README.md");
    for target in TARGETS {
        let archive = if target.contains("windows") { ".zip" } else { ".tar.gz" };
        let archive = format!("tictac-{target}{archive}");
        assert!(readme.contains(&archive), "README does not name {archive}");
    }
    // The repository knows no URL of its own: the installers the release
    // attaches are named by their file, downloaded from the release page.
    for needed in [
        "`tictac-installer.sh` from the release page",
        "    sh tictac-installer.sh",
        "`tictac-installer.ps1` from the release page",
        "    powershell -ExecutionPolicy ByPass -File tictac-installer.ps1",
        "cargo install --locked",
    ] {
        assert!(readme.contains(needed), "README does not say {needed}");
    }
}

#[test]
fn the_windows_release_needs_no_c_runtime_beside_it() {
    // Without +crt-static an MSVC build needs VCRUNTIME140.dll, which a
    // machine without the Visual C++ redistributable lacks: the README
    // promises one tictac.exe with no DLL beside it.
    let config = read(".cargo/config.toml");
    let section = config.split("[target.x86_64-pc-windows-msvc]").nth(1).expect("the MSVC target");
    let section = section.split("\n[").next().unwrap_or("");
    assert!(section.contains("target-feature=+crt-static"), "{section}");
}

#[test]
fn the_release_attaches_the_static_site_and_publishes_it_to_pages() {
    let release = workflow("release.yml");
    let site = &release["jobs"]["site"];
    let script = runs(site).join("\n");
    assert!(script.contains("bash dist/site.sh "), "{script}");
    assert!(script.contains("tictac-site.zip"), "{script}");
    let uses = |job: &Yaml| -> Vec<String> {
        job["steps"]
            .as_vec()
            .expect("steps")
            .iter()
            .filter_map(|s| s["uses"].as_str())
            .map(String::from)
            .collect()
    };
    assert!(uses(site).iter().any(|u| u.starts_with("dtolnay/rust-toolchain")));
    assert_eq!(
        site["steps"].as_vec().expect("steps").iter().find_map(|s| s["with"]["targets"].as_str()),
        Some("wasm32-unknown-unknown")
    );
    assert!(uses(site).iter().any(|u| u.starts_with("actions/upload-pages-artifact")));
    let pages = &release["jobs"]["pages"];
    assert_eq!(pages["needs"].as_str(), Some("site"));
    assert_eq!(pages["permissions"]["pages"].as_str(), Some("write"));
    assert!(uses(pages).iter().any(|u| u.starts_with("actions/deploy-pages")));
    // The release job attaches everything the jobs it needs left in target/distrib.
    let attached = runs(&release["jobs"]["release"]).join("\n");
    assert!(attached.contains("target/distrib/*"), "{attached}");
    // And the README's first screen says where to find it, in words (no placeholder URL).
    let readme = read("README.md");
    let first_screen: String = readme.lines().take(30).collect::<Vec<_>>().join(" ");
    for said in
        ["tictac-site.zip", "repository's GitHub Pages", "bash dist/site.sh DIR", "no install"]
    {
        assert!(first_screen.contains(said), "the README's first screen does not say {said}");
    }
}
