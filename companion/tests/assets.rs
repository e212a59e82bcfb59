//! What the static files cost on the wire: the package's `.br`/`.gz` siblings sent as they are
//! (brotli when accepted, else gzip, else the file), other text compressed on the fly, and the
//! content-hashed copies cached as `immutable` while every other name is revalidated.

#[path = "common/mod.rs"]
mod common;

use common::*;
use std::io::{Read, Write};
use std::path::Path;

/// A wasm-like file: a wasm header, then varied but compressible bytes (about 48 KB).
fn wasm_bytes() -> Vec<u8> {
    let mut bytes = b"\0asm\x01\0\0\0".to_vec();
    for i in 0u32..12_000 {
        bytes.extend_from_slice(&(i % 251).to_le_bytes());
    }
    bytes
}

/// A script of a few KB, as `widget.js` is.
fn script_text() -> String {
    (0..200)
        .map(|i| format!("export const value{i} = \"widget string number {i}\";\n"))
        .collect()
}

fn brotli(bytes: &[u8], quality: u32) -> Vec<u8> {
    let mut out = Vec::new();
    {
        let mut writer = brotli::CompressorWriter::new(&mut out, 4096, quality, 22);
        writer.write_all(bytes).unwrap();
    }
    out
}

fn gzip(bytes: &[u8]) -> Vec<u8> {
    let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::best());
    encoder.write_all(bytes).unwrap();
    encoder.finish().unwrap()
}

fn unbrotli(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    brotli::Decompressor::new(bytes, 4096)
        .read_to_end(&mut out)
        .expect("valid brotli");
    out
}

fn gunzip(bytes: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(bytes)
        .read_to_end(&mut out)
        .expect("valid gzip");
    out
}

/// What the package build leaves for the companion: each file with its `.br` and `.gz`
/// siblings (here the siblings are made so that they differ from what the companion would make
/// on the fly: brotli quality 11 and a trailing comment in the gzip header).
struct Built {
    wasm: Vec<u8>,
    wasm_br: Vec<u8>,
    wasm_gz: Vec<u8>,
}

const HASHED_WASM: &str = "light/fundraising_client_bg.0123456789abcdef.wasm";
const HASHED_JS: &str = "light/fundraising_client.fedcba9876543210.js";

fn write_with_siblings(folder: &Path, name: &str, bytes: &[u8]) -> (Vec<u8>, Vec<u8>) {
    let path = folder.join(name);
    std::fs::create_dir_all(path.parent().unwrap()).unwrap();
    std::fs::write(&path, bytes).unwrap();
    let br = brotli(bytes, 11);
    let gz = gzip(bytes);
    std::fs::write(folder.join(format!("{name}.br")), &br).unwrap();
    std::fs::write(folder.join(format!("{name}.gz")), &gz).unwrap();
    (br, gz)
}

async fn companion_with_assets() -> (Companion, Built, tempfile::TempDir, tempfile::TempDir) {
    let site = tempfile::tempdir().unwrap();
    let pkg = tempfile::tempdir().unwrap();
    std::fs::write(site.path().join("widget.js"), script_text()).unwrap();
    std::fs::write(
        site.path().join("index.html"),
        format!(
            "<!doctype html><title>demo</title><p>{}</p>",
            "text ".repeat(500)
        ),
    )
    .unwrap();
    let wasm = wasm_bytes();
    let (wasm_br, wasm_gz) = write_with_siblings(pkg.path(), "fundraising_client_bg.wasm", &wasm);
    write_with_siblings(pkg.path(), HASHED_WASM, &wasm);
    write_with_siblings(pkg.path(), HASHED_JS, script_text().as_bytes());
    write_with_siblings(pkg.path(), "assets.js", script_text().as_bytes());
    let mut s = settings("http://127.0.0.1:9");
    s.static_dir = Some(site.path().to_path_buf());
    s.pkg_dir = Some(pkg.path().to_path_buf());
    let built = Built {
        wasm,
        wasm_br,
        wasm_gz,
    };
    (start_companion(s).await, built, site, pkg)
}

/// An answer as it came over the wire: status, headers and the body bytes undecoded (the test
/// client decodes no content encoding).
struct Wire {
    status: u16,
    headers: reqwest::header::HeaderMap,
    body: Vec<u8>,
}

impl Wire {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).map(|v| v.to_str().unwrap())
    }

    fn varies_by_encoding(&self) -> bool {
        self.headers.get_all("vary").iter().any(|v| {
            v.to_str()
                .unwrap()
                .split(',')
                .any(|n| n.trim().eq_ignore_ascii_case("accept-encoding"))
        })
    }
}

async fn fetch(companion: &Companion, path: &str, headers: &[(&str, &str)]) -> Wire {
    let mut request = client().get(format!("{}{path}", companion.url()));
    for (name, value) in headers {
        request = request.header(*name, *value);
    }
    let response = request.send().await.unwrap();
    Wire {
        status: response.status().as_u16(),
        headers: response.headers().clone(),
        body: response.bytes().await.unwrap().to_vec(),
    }
}

#[tokio::test]
async fn the_wasm_crosses_as_the_builds_brotli_or_gzip_file() {
    let (companion, built, _site, _pkg) = companion_with_assets().await;
    let path = "/pkg/fundraising_client_bg.wasm";

    let br = fetch(
        &companion,
        path,
        &[("accept-encoding", "gzip, deflate, br")],
    )
    .await;
    assert_eq!(br.status, 200);
    assert_eq!(br.header("content-encoding"), Some("br"));
    assert_eq!(br.header("content-type"), Some("application/wasm"));
    assert!(br.varies_by_encoding());
    // The bytes on the wire are the build's .br file, not a compression made on the fly.
    assert_eq!(br.body, built.wasm_br);
    assert_eq!(
        br.header("content-length"),
        Some(built.wasm_br.len().to_string().as_str())
    );
    assert_eq!(unbrotli(&br.body), built.wasm);
    assert!(
        br.body.len() * 3 < built.wasm.len(),
        "{} of {}",
        br.body.len(),
        built.wasm.len()
    );

    let gz = fetch(&companion, path, &[("accept-encoding", "gzip")]).await;
    assert_eq!(gz.header("content-encoding"), Some("gzip"));
    assert_eq!(gz.header("content-type"), Some("application/wasm"));
    assert!(gz.varies_by_encoding());
    assert_eq!(gz.body, built.wasm_gz);
    assert_eq!(gunzip(&gz.body), built.wasm);

    // brotli refused by quality 0: gzip.
    let no_br = fetch(&companion, path, &[("accept-encoding", "br;q=0, gzip")]).await;
    assert_eq!(no_br.header("content-encoding"), Some("gzip"));
    assert_eq!(no_br.body, built.wasm_gz);

    // A client that accepts no encoding gets the file itself.
    let plain = fetch(&companion, path, &[]).await;
    assert_eq!(plain.status, 200);
    assert_eq!(plain.header("content-encoding"), None);
    assert_eq!(plain.body, built.wasm);
    assert!(plain.varies_by_encoding());
}

#[tokio::test]
async fn text_without_a_precompressed_sibling_is_compressed_on_the_fly() {
    let (companion, _built, _site, _pkg) = companion_with_assets().await;
    let script = script_text();
    for (path, original) in [
        ("/widget.js", script.as_bytes().to_vec()),
        ("/", std::fs::read(_site.path().join("index.html")).unwrap()),
    ] {
        let br = fetch(&companion, path, &[("accept-encoding", "gzip, br")]).await;
        assert_eq!(br.status, 200, "{path}");
        assert_eq!(br.header("content-encoding"), Some("br"), "{path}");
        assert!(br.varies_by_encoding(), "{path}");
        assert_eq!(unbrotli(&br.body), original, "{path}");
        assert!(
            br.body.len() * 2 < original.len(),
            "{path}: {} of {}",
            br.body.len(),
            original.len()
        );
        let gz = fetch(&companion, path, &[("accept-encoding", "gzip")]).await;
        assert_eq!(gz.header("content-encoding"), Some("gzip"), "{path}");
        assert_eq!(gunzip(&gz.body), original, "{path}");
        let plain = fetch(&companion, path, &[]).await;
        assert_eq!(plain.header("content-encoding"), None, "{path}");
        assert_eq!(plain.body, original, "{path}");
    }
    // Compressed or not, a script keeps its type and the headers every asset carries.
    let br = fetch(&companion, "/widget.js", &[("accept-encoding", "br")]).await;
    assert_eq!(
        br.header("content-type"),
        Some("text/javascript; charset=utf-8")
    );
    assert_eq!(br.header("x-content-type-options"), Some("nosniff"));
}

#[tokio::test]
async fn hashed_copies_are_immutable_and_every_other_name_is_revalidated() {
    let (companion, built, _site, _pkg) = companion_with_assets().await;
    const IMMUTABLE: &str = "public, max-age=31536000, immutable";

    for path in [format!("/pkg/{HASHED_WASM}"), format!("/pkg/{HASHED_JS}")] {
        let answer = fetch(&companion, &path, &[("accept-encoding", "br")]).await;
        assert_eq!(answer.status, 200, "{path}");
        assert_eq!(answer.header("cache-control"), Some(IMMUTABLE), "{path}");
        assert_eq!(answer.header("content-encoding"), Some("br"), "{path}");
        // Revalidation still works (a browser that does ask gets a 304, still immutable).
        let modified = answer.header("last-modified").expect("Last-Modified");
        let again = fetch(
            &companion,
            &path,
            &[("accept-encoding", "br"), ("if-modified-since", modified)],
        )
        .await;
        assert_eq!(again.status, 304, "{path}");
        assert_eq!(again.header("cache-control"), Some(IMMUTABLE), "{path}");
    }
    let wasm = fetch(&companion, &format!("/pkg/{HASHED_WASM}"), &[]).await;
    assert_eq!(wasm.body, built.wasm);
    assert_eq!(wasm.header("content-type"), Some("application/wasm"));

    // Stable names (the npm package's entry points, the list of hashed names, widget.js and
    // the pages) are revalidated before each use, so a new build is picked up at once.
    for path in [
        "/pkg/fundraising_client_bg.wasm",
        "/pkg/assets.js",
        "/widget.js",
        "/",
    ] {
        let answer = fetch(&companion, path, &[("accept-encoding", "br")]).await;
        assert_eq!(answer.status, 200, "{path}");
        assert_eq!(answer.header("cache-control"), Some("no-cache"), "{path}");
    }
    // A hashed name that is not there is no reason to cache a 404 for a year.
    let missing = fetch(
        &companion,
        "/pkg/light/fundraising_client_bg.aaaaaaaaaaaaaaaa.wasm",
        &[],
    )
    .await;
    assert_eq!(missing.status, 404);
    assert_ne!(missing.header("cache-control"), Some(IMMUTABLE));
    // A name shaped like a hash outside /pkg is not the build's.
    std::fs::write(_site.path().join("page.0123456789abcdef.js"), "x").unwrap();
    let outside = fetch(&companion, "/page.0123456789abcdef.js", &[]).await;
    assert_eq!(outside.status, 200);
    assert_eq!(outside.header("cache-control"), Some("no-cache"));
}

/// A site folder next to a secret outside it, reached by a symbolic link inside.
struct Hostile {
    companion: Companion,
    _site: tempfile::TempDir,
    _outside: tempfile::TempDir,
    _pkg: tempfile::TempDir,
}

async fn companion_with_hostile_files() -> Hostile {
    let site = tempfile::tempdir().unwrap();
    let outside = tempfile::tempdir().unwrap();
    let pkg = tempfile::tempdir().unwrap();
    let root = site.path();
    std::fs::write(outside.path().join("secret.txt"), "outside the root").unwrap();
    std::fs::create_dir_all(outside.path().join("dir")).unwrap();
    std::fs::write(outside.path().join("dir/index.html"), "outside index").unwrap();
    std::os::unix::fs::symlink(outside.path().join("secret.txt"), root.join("leak.txt")).unwrap();
    std::os::unix::fs::symlink(outside.path().join("dir"), root.join("linked")).unwrap();
    std::fs::write(root.join("inside.txt"), "inside").unwrap();
    std::os::unix::fs::symlink("inside.txt", root.join("alias.txt")).unwrap();
    // An absolute link names the machine's root, not the folder's, even when it leads inside.
    std::os::unix::fs::symlink(root.join("inside.txt"), root.join("absolute.txt")).unwrap();
    std::fs::write(root.join(".env"), "SECRET=1").unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".git/config"), "[core]").unwrap();
    std::fs::write(root.join(".gitignore"), "target").unwrap();
    std::fs::write(
        root.join("image.svg"),
        r#"<svg xmlns="http://www.w3.org/2000/svg"><script>alert(1)</script></svg>"#,
    )
    .unwrap();
    std::fs::write(
        root.join("page.xhtml"),
        r#"<html xmlns="http://www.w3.org/1999/xhtml"><script>alert(1)</script></html>"#,
    )
    .unwrap();
    std::fs::write(root.join("widget.js"), script_text()).unwrap();
    // Only the compressed siblings of a file that is not there.
    std::fs::write(root.join("gone.js.br"), brotli(script_text().as_bytes(), 5)).unwrap();
    std::fs::write(root.join("gone.js.gz"), gzip(script_text().as_bytes())).unwrap();
    write_with_siblings(
        pkg.path(),
        "light/fundraising_client.js",
        script_text().as_bytes(),
    );
    std::fs::write(pkg.path().join("light/index.html"), "<!doctype html>light").unwrap();
    let mut s = settings("http://127.0.0.1:9");
    s.static_dir = Some(root.to_path_buf());
    s.pkg_dir = Some(pkg.path().to_path_buf());
    Hostile {
        companion: start_companion(s).await,
        _site: site,
        _outside: outside,
        _pkg: pkg,
    }
}

#[tokio::test]
async fn only_files_inside_the_root_are_served_and_never_hidden_ones() {
    let h = companion_with_hostile_files().await;
    for path in [
        "/leak.txt",
        "/linked/",
        "/linked/index.html",
        "/.env",
        "/.git/config",
        "/.gitignore",
        "/%2eenv",
        "/gone.js",
        "/absolute.txt",
    ] {
        for encoding in ["", "br, gzip"] {
            let answer = fetch(&h.companion, path, &[("accept-encoding", encoding)]).await;
            assert_eq!(answer.status, 404, "{path} ({encoding:?})");
            let body = String::from_utf8_lossy(&answer.body).into_owned();
            assert!(
                !body.contains("outside") && !body.contains("SECRET"),
                "{path}"
            );
        }
    }
    // A link that stays inside the root is a file like any other.
    let alias = fetch(&h.companion, "/alias.txt", &[]).await;
    assert_eq!((alias.status, alias.body.as_slice()), (200, &b"inside"[..]));
}

#[tokio::test]
async fn a_folder_built_after_the_start_is_served_and_a_release_link_is_followed_when_switched() {
    // `--static-dir dist` names a folder a build writes while the companion already runs (a
    // test runner's `npm run build`), and a deployment's `current` link moves between releases.
    let base = tempfile::tempdir().unwrap();
    let mut s = settings("http://127.0.0.1:9");
    s.static_dir = Some(base.path().join("dist"));
    s.pkg_dir = Some(base.path().join("current"));
    let companion = start_companion(s).await;
    assert_eq!(fetch(&companion, "/index.html", &[]).await.status, 404);
    assert_eq!(fetch(&companion, "/pkg/app.js", &[]).await.status, 404);

    std::fs::create_dir(base.path().join("dist")).unwrap();
    std::fs::write(base.path().join("dist/index.html"), "built").unwrap();
    let page = fetch(&companion, "/", &[]).await;
    assert_eq!((page.status, page.body.as_slice()), (200, &b"built"[..]));

    for release in ["v1", "v2"] {
        let folder = base.path().join(release);
        std::fs::create_dir(&folder).unwrap();
        std::fs::write(folder.join("app.js"), format!("// {release}")).unwrap();
        let _ = std::fs::remove_file(base.path().join("current"));
        std::os::unix::fs::symlink(&folder, base.path().join("current")).unwrap();
        let script = fetch(&companion, "/pkg/app.js", &[]).await;
        assert_eq!(script.status, 200, "{release}");
        assert_eq!(
            String::from_utf8_lossy(&script.body),
            format!("// {release}")
        );
    }
}

#[tokio::test]
async fn every_static_answer_carries_the_csp_and_svg_or_xhtml_run_no_inline_script() {
    let h = companion_with_hostile_files().await;
    for path in [
        "/image.svg",
        "/page.xhtml",
        "/widget.js",
        "/inside.txt",
        "/no-such-file",
    ] {
        let answer = fetch(&h.companion, path, &[]).await;
        let csp = answer
            .header("content-security-policy")
            .unwrap_or_else(|| panic!("{path} ({}) has no CSP", answer.status));
        assert!(
            csp.contains("script-src 'self' 'wasm-unsafe-eval'"),
            "{path}: {csp}"
        );
        assert!(!csp.contains("unsafe-inline"), "{path}: {csp}");
        assert!(csp.contains("frame-ancestors 'none'"), "{path}: {csp}");
        assert_eq!(
            answer.header("x-content-type-options"),
            Some("nosniff"),
            "{path}"
        );
    }
}

#[tokio::test]
async fn head_answers_with_the_headers_get_gives() {
    let (companion, _built, _site, _pkg) = companion_with_assets().await;
    for (path, encoding) in [
        ("/widget.js", "br"),
        ("/widget.js", "gzip"),
        ("/", "br"),
        ("/pkg/fundraising_client_bg.wasm", "br"),
        ("/pkg/fundraising_client_bg.wasm", ""),
    ] {
        let get = fetch(&companion, path, &[("accept-encoding", encoding)]).await;
        let response = client()
            .head(format!("{}{path}", companion.url()))
            .header("accept-encoding", encoding)
            .send()
            .await
            .unwrap();
        assert_eq!(response.status().as_u16(), get.status, "{path}");
        for name in [
            "content-encoding",
            "content-type",
            "vary",
            "cache-control",
            "content-security-policy",
        ] {
            let head = response.headers().get(name).map(|v| v.to_str().unwrap());
            assert_eq!(head, get.header(name), "{path} {encoding:?}: {name}");
        }
        assert!(
            response.bytes().await.unwrap().is_empty(),
            "{path}: HEAD has no body"
        );
    }
}

#[tokio::test]
async fn odd_paths_and_ranges_get_4xx_answers_that_say_the_truth() {
    let (companion, _built, _site, _pkg) = companion_with_assets().await;
    // An over-long segment: the file system cannot have it; no 500, no error in the log.
    let long = format!("/{}.js", "a".repeat(300));
    assert_eq!(fetch(&companion, &long, &[]).await.status, 404);
    let very_long = format!("/{}", "a/".repeat(3000));
    assert_eq!(fetch(&companion, &very_long, &[]).await.status, 414);
    // A range past the end of a compressed file: 416 with the length, and no
    // Content-Encoding on an empty body.
    let past = fetch(
        &companion,
        "/pkg/fundraising_client_bg.wasm",
        &[("accept-encoding", "br"), ("range", "bytes=99999999-")],
    )
    .await;
    assert_eq!(past.status, 416);
    assert_eq!(past.header("content-encoding"), None);
    let len = past.header("content-range").expect("Content-Range");
    assert!(len.starts_with("bytes */"), "{len}");
}

/// RFC 9110 §14: a range unit the server does not know is ignored (the whole file), a last
/// position past the end is clamped to it, however many digits it has, and several ranges may
/// be ignored; one range inside the file is a `206` with its `Content-Range`.
#[tokio::test]
async fn ranges_are_read_as_rfc_9110_says() {
    let (companion, built, _site, _pkg) = companion_with_assets().await;
    let path = "/pkg/fundraising_client_bg.wasm";
    let len = built.wasm.len();
    for ignored in ["items=0-1", "bytes=0-1,5-9", "bytes=9-2"] {
        let whole = fetch(&companion, path, &[("range", ignored)]).await;
        assert_eq!(whole.status, 200, "{ignored}");
        assert_eq!(whole.body, built.wasm, "{ignored}");
        assert_eq!(whole.header("content-range"), None, "{ignored}");
    }
    let clamped = fetch(
        &companion,
        path,
        &[("range", "bytes=0-99999999999999999999")],
    )
    .await;
    assert_eq!(clamped.status, 206);
    assert_eq!(clamped.body, built.wasm);
    let expected = format!("bytes 0-{}/{len}", len - 1);
    assert_eq!(clamped.header("content-range"), Some(expected.as_str()));
    let part = fetch(&companion, path, &[("range", "bytes=4-7")]).await;
    assert_eq!(part.status, 206);
    assert_eq!(part.body, built.wasm[4..8]);
    assert_eq!(part.header("content-length"), Some("4"));
    let suffix = fetch(&companion, path, &[("range", "bytes=-3")]).await;
    assert_eq!(suffix.body, built.wasm[len - 3..]);
    // A range of the brotli file the browser takes is a range of those bytes.
    let br = fetch(
        &companion,
        path,
        &[("accept-encoding", "br"), ("range", "bytes=0-9")],
    )
    .await;
    assert_eq!(br.status, 206);
    assert_eq!(br.header("content-encoding"), Some("br"));
    assert_eq!(br.body, built.wasm_br[..10]);
    // A range with an `If-Range` date that is not the file's: the whole file.
    let stale = fetch(
        &companion,
        path,
        &[
            ("range", "bytes=0-9"),
            ("if-range", "Sat, 01 Jan 2000 00:00:00 GMT"),
        ],
    )
    .await;
    assert_eq!((stale.status, stale.body.len()), (200, len));
}

#[tokio::test]
async fn a_nested_folder_redirect_keeps_its_prefix() {
    let h = companion_with_hostile_files().await;
    let answer = fetch(&h.companion, "/pkg/light?v=1", &[]).await;
    assert!(
        matches!(answer.status, 301 | 302 | 307 | 308),
        "{}",
        answer.status
    );
    assert_eq!(answer.header("location"), Some("/pkg/light/?v=1"));
    let index = fetch(&h.companion, "/pkg/light/", &[]).await;
    assert_eq!(index.status, 200);
}

/// A secret outside the site, as a key file or a client secret would be.
const SECRET_OUTSIDE: &str = "cookie-key-material-outside-the-folder";

/// A site and a package folder whose compressed siblings are links to a secret outside them:
/// `app.js.br` and `app.js.gz` beside a real `app.js`, the same under `/pkg/`, and a folder's
/// `index.html.gz` and `index.html.br` beside its real `index.html`.
#[tokio::test]
async fn a_compressed_sibling_linked_out_of_the_folder_is_never_sent() {
    let outside = tempfile::tempdir().unwrap();
    let site = tempfile::tempdir().unwrap();
    let pkg = tempfile::tempdir().unwrap();
    let secret = outside.path().join("cookie.key");
    std::fs::write(&secret, SECRET_OUTSIDE).unwrap();
    let script = script_text();
    let page = format!("<!doctype html><p>{}</p>", "page ".repeat(300));
    for (folder, name, text) in [
        (site.path(), "app.js", script.as_str()),
        (pkg.path(), "light/fundraising_client.js", script.as_str()),
        (site.path(), "docs/index.html", page.as_str()),
    ] {
        let file = folder.join(name);
        std::fs::create_dir_all(file.parent().unwrap()).unwrap();
        std::fs::write(&file, text).unwrap();
        for extension in ["br", "gz"] {
            std::os::unix::fs::symlink(&secret, folder.join(format!("{name}.{extension}")))
                .unwrap();
        }
    }
    let mut s = settings("http://127.0.0.1:9");
    s.static_dir = Some(site.path().to_path_buf());
    s.pkg_dir = Some(pkg.path().to_path_buf());
    let companion = start_companion(s).await;
    for (path, original) in [
        ("/app.js", script.as_str()),
        ("/pkg/light/fundraising_client.js", script.as_str()),
        ("/docs/", page.as_str()),
        ("/docs/index.html", page.as_str()),
    ] {
        for encoding in ["br", "gzip", "gzip, br"] {
            let answer = fetch(&companion, path, &[("accept-encoding", encoding)]).await;
            assert!(
                !String::from_utf8_lossy(&answer.body).contains(SECRET_OUTSIDE),
                "{path} ({encoding}) sent the secret outside the folder"
            );
            assert_eq!(answer.status, 200, "{path} ({encoding})");
            // The file itself, compressed on the fly: the linked sibling is passed over.
            let body = match answer.header("content-encoding") {
                Some("br") => unbrotli(&answer.body),
                Some("gzip") => gunzip(&answer.body),
                _ => answer.body.clone(),
            };
            assert_eq!(body, original.as_bytes(), "{path} ({encoding})");
        }
    }
}

/// Links inside the folder that lead to hidden names (`envlink` to `.env`, `gitlink` to
/// `.git/`) serve nothing, and neither do siblings reached that way.
#[tokio::test]
async fn a_link_inside_the_folder_to_a_hidden_name_serves_nothing() {
    let site = tempfile::tempdir().unwrap();
    let root = site.path();
    std::fs::write(root.join(".env"), "SECRET=1").unwrap();
    std::fs::create_dir_all(root.join(".git")).unwrap();
    std::fs::write(root.join(".git/config"), "[core] secret").unwrap();
    std::fs::write(root.join(".git/index.html"), "SECRET page").unwrap();
    std::fs::write(root.join("page.js"), "export {};").unwrap();
    std::os::unix::fs::symlink(".env", root.join("envlink")).unwrap();
    std::os::unix::fs::symlink(".git", root.join("gitlink")).unwrap();
    std::os::unix::fs::symlink("../.env", root.join("page.js.gz")).unwrap_or(());
    std::os::unix::fs::symlink(root.join(".env"), root.join("page.js.br")).unwrap();
    let mut s = settings("http://127.0.0.1:9");
    s.static_dir = Some(root.to_path_buf());
    let companion = start_companion(s).await;
    for path in ["/envlink", "/gitlink/config", "/gitlink/", "/gitlink"] {
        let answer = fetch(&companion, path, &[]).await;
        assert_eq!(answer.status, 404, "{path}");
        assert!(
            !String::from_utf8_lossy(&answer.body).contains("SECRET"),
            "{path}"
        );
    }
    let script = fetch(&companion, "/page.js", &[("accept-encoding", "br, gzip")]).await;
    assert_eq!(script.status, 200);
    assert_ne!(script.header("content-encoding"), Some("br"));
    assert!(!String::from_utf8_lossy(&script.body).contains("SECRET"));
}

/// Links swapped in a tight loop while requests arrive (a regular file, then a link to a file
/// outside; a folder, then a link to a folder outside) never serve a byte from outside, for
/// several seconds of racing; the inside files keep being served meanwhile.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn links_swapped_while_requests_arrive_never_lead_out_of_the_folder() {
    let outside = tempfile::tempdir().unwrap();
    let site = tempfile::tempdir().unwrap();
    let root = site.path().to_path_buf();
    std::fs::write(outside.path().join("race.txt"), SECRET_OUTSIDE).unwrap();
    std::fs::create_dir_all(outside.path().join("d")).unwrap();
    std::fs::write(outside.path().join("d/f.txt"), SECRET_OUTSIDE).unwrap();
    std::fs::write(root.join("race.txt"), "inside").unwrap();
    std::fs::create_dir_all(root.join("d")).unwrap();
    std::fs::write(root.join("d/f.txt"), "inside").unwrap();
    let mut s = settings("http://127.0.0.1:9");
    s.static_dir = Some(root.clone());
    let companion = start_companion(s).await;

    let racing = std::time::Duration::from_secs(4);
    let swapper = {
        let (root, outside) = (root.clone(), outside.path().to_path_buf());
        std::thread::spawn(move || {
            let started = std::time::Instant::now();
            let mut swaps = 0u64;
            while started.elapsed() < racing {
                // A regular file and a folder, each replaced atomically by a link leading out.
                std::fs::write(root.join("race.new"), "inside").unwrap();
                std::fs::rename(root.join("race.new"), root.join("race.txt")).unwrap();
                std::os::unix::fs::symlink(outside.join("race.txt"), root.join("race.new"))
                    .unwrap();
                std::fs::rename(root.join("race.new"), root.join("race.txt")).unwrap();
                std::os::unix::fs::symlink(outside.join("d"), root.join("d.new")).unwrap();
                let _ = std::fs::remove_dir_all(root.join("d.old"));
                std::fs::rename(root.join("d"), root.join("d.old")).unwrap();
                std::fs::rename(root.join("d.new"), root.join("d")).unwrap();
                std::fs::create_dir_all(root.join("d.new")).unwrap();
                std::fs::write(root.join("d.new/f.txt"), "inside").unwrap();
                std::fs::remove_file(root.join("d")).unwrap();
                std::fs::rename(root.join("d.new"), root.join("d")).unwrap();
                swaps += 1;
            }
            swaps
        })
    };
    let mut requesters = Vec::new();
    for i in 0..4 {
        let url = companion.url().clone();
        let path = if i % 2 == 0 { "/race.txt" } else { "/d/f.txt" };
        requesters.push(tokio::spawn(async move {
            let client = client();
            let started = std::time::Instant::now();
            let (mut inside, mut leaked, mut total) = (0u32, 0u32, 0u32);
            while started.elapsed() < racing {
                let response = client.get(format!("{url}{path}")).send().await.unwrap();
                let body = response.bytes().await.unwrap();
                total += 1;
                if body.as_ref() == b"inside" {
                    inside += 1;
                } else if String::from_utf8_lossy(&body).contains(SECRET_OUTSIDE) {
                    leaked += 1;
                }
            }
            (path, inside, leaked, total)
        }));
    }
    let swaps = swapper.join().unwrap();
    for requester in requesters {
        let (path, inside, leaked, total) = requester.await.unwrap();
        assert_eq!(
            leaked, 0,
            "{path}: {leaked} of {total} answers came from outside"
        );
        assert!(
            inside > 0,
            "{path}: the inside file was never served ({total} requests)"
        );
    }
    assert!(swaps > 100, "the links were swapped {swaps} times");
}
