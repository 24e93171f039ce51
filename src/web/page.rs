//! The tablet panel: the files of `web/panel/`, built into the binary.
//!
//! - `GET /`: the panel's `index.html`;
//! - `GET /board`: the scoreboard, `board.html` (large type, read-only);
//! - `GET /me`: a bowler's own phone page, `me.html`;
//! - `GET /panel/{*file}`: its scripts and styles.
//!
//! Every answer carries `Cache-Control: no-cache` (a tablet must not keep a
//! panel older than the daemon it talks to) and a strict
//! `Content-Security-Policy`: the panel runs only its own scripts and
//! styles and talks only to its own origin. An unknown file is `404`.

use std::borrow::Cow;

use axum::Router;
use axum::extract::Path;
use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;

/// The panel's files.
#[derive(rust_embed::Embed)]
#[folder = "web/panel/"]
struct Panel;

/// What the panel may load and where it may connect.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'self'; connect-src 'self'; \
     img-src 'self' data:; style-src 'self'; script-src 'self'; base-uri 'none'; \
     form-action 'none'; frame-ancestors 'none'";

/// The routes of the panel's page, to merge into the API's router.
pub fn routes<S: Clone + Send + Sync + 'static>() -> Router<S> {
    Router::new()
        .route("/", get(index))
        .route("/board", get(board))
        .route("/me", get(me))
        .route("/panel/{*file}", get(file))
}

async fn index() -> Response {
    serve("index.html")
}

async fn board() -> Response {
    serve("board.html")
}

async fn me() -> Response {
    serve("me.html")
}

async fn file(Path(file): Path<String>) -> Response {
    serve(&file)
}

/// The content type of a panel file, by its extension; `None` for a kind
/// of file the panel does not serve.
pub fn content_type(path: &str) -> Option<&'static str> {
    let ext = path.rsplit_once('.').map(|(_, e)| e)?;
    Some(match ext.to_ascii_lowercase().as_str() {
        "html" => "text/html; charset=utf-8",
        "js" | "mjs" => "text/javascript; charset=utf-8",
        "css" => "text/css; charset=utf-8",
        "json" => "application/json",
        "svg" => "image/svg+xml",
        "png" => "image/png",
        "ico" => "image/x-icon",
        "txt" => "text/plain; charset=utf-8",
        _ => return None,
    })
}

fn serve(path: &str) -> Response {
    let found = content_type(path).and_then(|ct| Panel::get(path).map(|f| (ct, f.data)));
    let Some((ct, data)) = found else {
        return with_headers(
            (
                StatusCode::NOT_FOUND,
                [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
                "not found",
            )
                .into_response(),
        );
    };
    let body: Cow<'static, [u8]> = data;
    with_headers(([(header::CONTENT_TYPE, ct)], body).into_response())
}

fn with_headers(mut res: Response) -> Response {
    let h = res.headers_mut();
    h.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-cache"));
    h.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(CONTENT_SECURITY_POLICY),
    );
    h.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    h.insert(
        header::REFERRER_POLICY,
        HeaderValue::from_static("no-referrer"),
    );
    res
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::body::{Body, to_bytes};
    use axum::http::Request;
    use tower::ServiceExt;

    /// The most the panel's files may weigh together: three pages (`/`,
    /// `/board`, `/me`) of at most 150 KB each. What each page loads is
    /// weighed in a real browser by tests/panel_browser.rs.
    const MAX_TOTAL: usize = 3 * 150 * 1024;

    async fn get_path(path: &str) -> Response {
        let app: Router = routes();
        app.oneshot(Request::get(path).body(Body::empty()).unwrap())
            .await
            .unwrap()
    }

    #[tokio::test]
    async fn every_file_is_served_with_its_type() {
        let mut total = 0;
        let mut count = 0;
        for name in Panel::iter() {
            let want = content_type(&name).unwrap_or_else(|| panic!("{name}: no content type"));
            let res = get_path(&format!("/panel/{name}")).await;
            assert_eq!(res.status(), StatusCode::OK, "{name}");
            let h = res.headers();
            assert_eq!(h[header::CONTENT_TYPE], want, "{name}");
            assert_eq!(h[header::CACHE_CONTROL], "no-cache", "{name}");
            assert_eq!(
                h[header::CONTENT_SECURITY_POLICY],
                CONTENT_SECURITY_POLICY,
                "{name}"
            );
            let body = to_bytes(res.into_body(), usize::MAX).await.unwrap();
            assert_eq!(body.len(), Panel::get(&name).unwrap().data.len(), "{name}");
            total += body.len();
            count += 1;
        }
        assert!(count >= 3, "the panel has {count} files");
        assert!(
            total <= MAX_TOTAL,
            "the panel weighs {total} bytes, more than {MAX_TOTAL}"
        );
    }

    #[tokio::test]
    async fn root_is_the_index() {
        let res = get_path("/").await;
        assert_eq!(res.status(), StatusCode::OK);
        assert_eq!(
            res.headers()[header::CONTENT_TYPE],
            "text/html; charset=utf-8"
        );
        assert_eq!(
            res.headers()[header::CONTENT_SECURITY_POLICY],
            CONTENT_SECURITY_POLICY
        );
        let body = to_bytes(res.into_body(), usize::MAX).await.unwrap();
        assert!(body.starts_with(b"<!doctype html>"));
    }

    #[tokio::test]
    async fn unknown_files_are_not_found() {
        for path in [
            "/panel/nothing.js",
            "/panel/",
            "/panel/../Cargo.toml",
            "/panel/app",
            "/panel/%2e%2e/Cargo.toml",
        ] {
            let res = get_path(path).await;
            assert_eq!(res.status(), StatusCode::NOT_FOUND, "{path}");
        }
        let res = get_path("/panel/nothing.js").await;
        assert_eq!(res.headers()[header::CACHE_CONTROL], "no-cache");
        assert_eq!(
            res.headers()[header::CONTENT_SECURITY_POLICY],
            CONTENT_SECURITY_POLICY
        );
    }

    #[test]
    fn the_page_has_no_inline_script_or_style() {
        let html = Panel::get("index.html").unwrap().data;
        let html = std::str::from_utf8(&html).unwrap();
        assert!(!html.contains(" style="), "inline style attribute");
        assert!(!html.contains("<style"), "inline style element");
        for (at, _) in html.match_indices(" on") {
            let rest = &html[at + 3..];
            let name_len = rest
                .find(|c: char| !c.is_ascii_alphabetic())
                .unwrap_or(rest.len());
            assert!(
                !rest[name_len..].starts_with('='),
                "inline event handler at {at}"
            );
        }
        for tag in html.split("<script").skip(1) {
            assert!(
                tag.trim_start().starts_with("type=\"module\" src="),
                "inline script"
            );
        }
    }

    #[tokio::test]
    async fn the_scoreboard_and_the_phone_are_pages_like_the_index() {
        for (path, file) in [("/board", "board.html"), ("/me", "me.html")] {
            let res = get_path(path).await;
            assert_eq!(res.status(), StatusCode::OK, "{path}");
            let h = res.headers();
            assert_eq!(
                h[header::CONTENT_TYPE],
                "text/html; charset=utf-8",
                "{path}"
            );
            assert_eq!(h[header::CACHE_CONTROL], "no-cache", "{path}");
            assert_eq!(
                h[header::CONTENT_SECURITY_POLICY],
                CONTENT_SECURITY_POLICY,
                "{path}"
            );
            let body = to_bytes(res.into_body(), usize::MAX).await.unwrap();
            assert_eq!(&body[..], &Panel::get(file).unwrap().data[..], "{path}");
            let html = std::str::from_utf8(&body).unwrap();
            assert!(html.starts_with("<!doctype html>"), "{path}");
            assert!(
                !html.contains(" style=") && !html.contains("<style"),
                "{path}"
            );
            for tag in html.split("<script").skip(1) {
                assert!(
                    tag.trim_start().starts_with("type=\"module\" src="),
                    "{path}: inline script"
                );
            }
        }
    }
}
