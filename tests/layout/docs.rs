//! The docs point at files that are in the repository.

use std::path::Path;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");

/// The repository paths a text names: words with a `/` and a file's
/// extension, not starting at the root or a home (`/etc/...`, `~/...`), in
/// backquotes, brackets or plain text.
fn cited_paths(text: &str) -> Vec<String> {
    const EXTENSIONS: [&str; 8] = ["md", "txt", "rs", "toml", "service", "sh", "js", "jsonl"];
    text.split(|c: char| c.is_whitespace() || "`()[],;:\"'<>".contains(c))
        .map(|w| w.trim_end_matches('.'))
        .filter(|w| w.contains('/') && !w.starts_with(['/', '~', '$']) && !w.contains("://"))
        .filter(|w| !w.contains(['*', '{', '<', '…']))
        .filter(|w| {
            w.rsplit_once('.')
                .is_some_and(|(_, ext)| EXTENSIONS.contains(&ext))
        })
        .map(str::to_owned)
        .collect()
}

#[test]
fn the_docs_cite_files_in_the_repository() {
    let mut docs = vec!["README.md".to_owned(), "hardware/README.md".to_owned()];
    for entry in std::fs::read_dir(Path::new(ROOT).join("docs")).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "md") {
            docs.push(format!(
                "docs/{}",
                path.file_name().unwrap().to_string_lossy()
            ));
        }
    }
    let mut missing = Vec::new();
    let mut cited = 0;
    for doc in &docs {
        let text = std::fs::read_to_string(Path::new(ROOT).join(doc)).unwrap();
        for path in cited_paths(&text) {
            cited += 1;
            if !Path::new(ROOT).join(&path).exists() {
                missing.push(format!("{doc}: {path}"));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "cited but not in the repository: {missing:#?}"
    );
    assert!(cited >= 20, "only {cited} paths read");
}

#[test]
fn the_rules_cite_their_sources_page() {
    let rules = std::fs::read_to_string(Path::new(ROOT).join("docs/rules.md")).unwrap();
    let sources = rules
        .split("\n\n")
        .find(|p| p.starts_with("Sources:"))
        .expect("a Sources paragraph");
    assert!(
        cited_paths(sources).contains(&"docs/sources.md".to_owned()),
        "{sources}"
    );
    let page = std::fs::read_to_string(Path::new(ROOT).join("docs/sources.md")).unwrap();
    // The source named by title and section.
    for name in [
        "Правила вида спорта",
        "No. 1194",
        "«Боулинг»",
        "«Правила IBSA»",
    ] {
        assert!(page.contains(name), "{name}");
    }
}
