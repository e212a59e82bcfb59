//! Finding a request's file beneath its folder.
//!
//! Every file served (the one named, each `.br`/`.gz` sibling, a folder's `index.html` and its
//! siblings) is opened beneath the folder's directory handle with cap-std (on Linux `openat2`
//! with `RESOLVE_BENEATH`): the kernel resolves the path, links included, and refuses any that
//! leads out of the folder, at the moment of the open. There is no check before the open that
//! a swapped link could outrun. A link that stays inside is followed, but the file it reaches
//! must not have a name starting with a dot (`envlink` → `.env` is refused): the place the open
//! file really has is read from the open descriptor itself, after the open.
//!
//! The folder itself is opened on each request (by its configured path, which may be a link
//! such as a release's `current`), so a folder built after the start is served, and a switched
//! link serves the release it points at now.

use cap_std::ambient_authority;
use cap_std::fs::{Dir, OpenOptions};
use percent_encoding::percent_decode_str;
use std::fs::{File, Metadata};
use std::path::{Component, Path, PathBuf};

/// Longest path segment (a file name on common file systems); longer is 404.
pub const MAX_SEGMENT: usize = 255;

/// A content coding a file may have a precompressed sibling for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Encoding {
    /// Brotli: the sibling `name.br`.
    Br,
    /// Gzip: the sibling `name.gz`.
    Gzip,
}

impl Encoding {
    /// The sibling's extension.
    fn extension(self) -> &'static str {
        match self {
            Encoding::Br => ".br",
            Encoding::Gzip => ".gz",
        }
    }

    /// The `Content-Encoding` value.
    pub fn name(self) -> &'static str {
        match self {
            Encoding::Br => "br",
            Encoding::Gzip => "gzip",
        }
    }
}

/// What a request path names: its decoded segments, and whether it ends with a slash.
#[derive(Debug, PartialEq, Eq)]
pub struct Named {
    segments: Vec<String>,
    folder: bool,
}

impl Named {
    /// Reads a request path (below the folder's mount point): each segment percent-decoded, none
    /// empty (but the last), `.` or `..`, starting with a dot, holding a slash, a backslash or
    /// a NUL, or longer than [`MAX_SEGMENT`]. `None` for a path that names nothing to serve.
    pub fn parse(path: &str) -> Option<Self> {
        let trimmed = path.strip_prefix('/').unwrap_or(path);
        let raw: Vec<&str> = trimmed.split('/').collect();
        let last = raw.len() - 1;
        let mut segments = Vec::with_capacity(raw.len());
        for (i, raw) in raw.iter().enumerate() {
            let segment = percent_decode_str(raw).decode_utf8().ok()?;
            if segment.is_empty() {
                if i == last {
                    continue;
                }
                return None;
            }
            if segment.starts_with('.')
                || segment.len() > MAX_SEGMENT
                || segment.contains(['/', '\\', '\0'])
            {
                return None;
            }
            segments.push(segment.into_owned());
        }
        Some(Self {
            segments,
            folder: path.is_empty() || path.ends_with('/'),
        })
    }
}

/// A file found for a request, open.
#[derive(Debug)]
pub struct Found {
    /// The file to send (the one named, or its sibling in `encoding`).
    pub file: File,
    /// Its metadata (length, modification time).
    pub metadata: Metadata,
    /// The sibling's encoding, when a sibling is sent.
    pub encoding: Option<Encoding>,
    /// The path of the file named (its extension gives the type, whatever is sent).
    pub named: PathBuf,
}

/// The outcome of a lookup.
#[derive(Debug)]
pub enum Lookup {
    /// A file to send.
    Found(Box<Found>),
    /// A folder named without its trailing slash.
    Folder,
    /// Nothing to serve.
    Missing,
}

/// Finds the file `named` names beneath `folder`: the file, or a folder's `index.html`, sent
/// as its first sibling in `accepted` (the encodings the client takes, best first) that is
/// fine to serve, else as itself. A sibling that is not a regular file inside the folder is
/// passed over. Blocking: call it off the async threads.
pub fn lookup(folder: &Path, named: &Named, accepted: &[Encoding]) -> Lookup {
    let Ok(root) = Dir::open_ambient_dir(folder, ambient_authority()) else {
        return Lookup::Missing;
    };
    let Some(place) = Place::of(&root) else {
        return Lookup::Missing;
    };
    let mut path: PathBuf = named.segments.iter().collect();
    let is_folder = if path.as_os_str().is_empty() {
        true
    } else {
        match open(&root, &path) {
            Some(file) => match file.metadata() {
                Ok(metadata) if metadata.is_dir() => {
                    if !place.holds(&file) {
                        return Lookup::Missing;
                    }
                    true
                }
                Ok(_) => false,
                Err(_) => return Lookup::Missing,
            },
            None => return Lookup::Missing,
        }
    };
    if is_folder {
        if !named.folder {
            return Lookup::Folder;
        }
        path.push("index.html");
    }
    let Some((file, metadata)) = open_file(&root, &place, &path) else {
        return Lookup::Missing;
    };
    for &encoding in accepted {
        let mut sibling = path.clone().into_os_string();
        sibling.push(encoding.extension());
        if let Some((file, metadata)) = open_file(&root, &place, Path::new(&sibling)) {
            return Lookup::Found(Box::new(Found {
                file,
                metadata,
                encoding: Some(encoding),
                named: path,
            }));
        }
    }
    Lookup::Found(Box::new(Found {
        file,
        metadata,
        encoding: None,
        named: path,
    }))
}

/// Opens `path` beneath `root` for reading, without blocking on a FIFO or a device.
fn open(root: &Dir, path: &Path) -> Option<File> {
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use cap_std::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    root.open_with(path, &options)
        .ok()
        .map(cap_std::fs::File::into_std)
}

/// `path` opened beneath `root`, if it is a regular file whose real place has no dotted name.
#[cfg(target_os = "linux")]
fn open_file(root: &Dir, place: &Place, path: &Path) -> Option<(File, Metadata)> {
    let file = open(root, path)?;
    let metadata = file.metadata().ok()?;
    if !metadata.is_file() || !place.holds(&file) {
        return None;
    }
    Some((file, metadata))
}

/// Whether a path below the folder has a segment starting with a dot.
fn dotted(below: &Path) -> bool {
    below.components().any(|c| match c {
        Component::Normal(name) => name.as_encoded_bytes().first() == Some(&b'.'),
        _ => true,
    })
}

/// Where the open folder really is, to tell where an open file really is below it.
#[cfg(target_os = "linux")]
struct Place(PathBuf);

#[cfg(target_os = "linux")]
impl Place {
    /// The folder's real path, read from its descriptor.
    fn of(root: &Dir) -> Option<Self> {
        use std::os::fd::AsRawFd;
        Some(Self(descriptor_path(root.as_raw_fd())?))
    }

    /// Whether `file` (opened beneath the folder) lies below it under no dotted name: its real
    /// path, read from its own descriptor, so no rename or link swapped after the open changes
    /// what is checked.
    fn holds(&self, file: &File) -> bool {
        use std::os::fd::AsRawFd;
        descriptor_path(file.as_raw_fd())
            .and_then(|real| real.strip_prefix(&self.0).ok().map(dotted))
            .is_some_and(|dotted| !dotted)
    }
}

/// The path of an open descriptor, as the kernel keeps it (`/proc/self/fd/N`).
#[cfg(target_os = "linux")]
fn descriptor_path(fd: std::os::fd::RawFd) -> Option<PathBuf> {
    std::fs::read_link(format!("/proc/self/fd/{fd}")).ok()
}

/// Elsewhere no descriptor tells its path portably: a path whose segments include a link is
/// refused altogether (cap-std still keeps every open inside the folder).
#[cfg(not(target_os = "linux"))]
struct Place;

#[cfg(not(target_os = "linux"))]
impl Place {
    fn of(_root: &Dir) -> Option<Self> {
        Some(Self)
    }

    fn holds(&self, _file: &File) -> bool {
        true
    }
}

/// `path` opened beneath `root`, if it is a regular file reached through no link.
#[cfg(not(target_os = "linux"))]
fn open_file(root: &Dir, place: &Place, path: &Path) -> Option<(File, Metadata)> {
    let mut prefix = PathBuf::new();
    for component in path.components() {
        prefix.push(component);
        if root.symlink_metadata(&prefix).ok()?.is_symlink() {
            return None;
        }
    }
    let file = open(root, path)?;
    let metadata = file.metadata().ok()?;
    (metadata.is_file() && place.holds(&file)).then_some((file, metadata))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn request_paths_name_segments() {
        let named = Named::parse("/a/b%20c.js").unwrap();
        assert_eq!(named.segments, ["a", "b c.js"]);
        assert!(!named.folder);
        assert!(Named::parse("/light/").unwrap().folder);
        assert!(Named::parse("").unwrap().folder);
        for bad in [
            "/.env", "/%2eenv", "/a/../b", "/a//b", "/a%2fb", "/a%5cb", "/a%00b", "/%ff",
        ] {
            assert_eq!(Named::parse(bad), None, "{bad}");
        }
        let long = format!("/{}", "a".repeat(MAX_SEGMENT + 1));
        assert_eq!(Named::parse(&long), None);
    }

    #[test]
    fn dotted_places_are_told_apart() {
        assert!(dotted(Path::new(".env")));
        assert!(dotted(Path::new("a/.git/config")));
        assert!(!dotted(Path::new("a/b.js")));
        assert!(!dotted(Path::new("")));
    }
}
