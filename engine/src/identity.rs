//! Who is asking: the caller's project (the repository a session runs in) and its platforms.
//!
//! Identity always comes from where the caller runs (its working folder, or an MCP client's
//! roots), never from the arguments of a memory operation.

use std::fs;
use std::path::{Path, PathBuf};

use serde::Serialize;

/// Files at a repository root that declare its project name (first one found wins).
pub const PROJECT_FILES: [&str; 2] = [".mindex-project", ".om-project"];

/// Where a caller's project name came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum CallerSource {
    /// Given explicitly (`--caller`).
    Explicit,
    /// Declared in a `.mindex-project` / `.om-project` file.
    Declared,
    /// The folder's name.
    Folder,
    /// No identity: the caller is anonymous.
    None,
}

/// How the surface serving a caller learned who it is.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum IdentifiedBy {
    /// Nothing identified it (an anonymous caller, or a library call that did not say).
    #[default]
    Nothing,
    /// Named by whoever runs the surface (`--caller`, a binding's `project` argument).
    Given,
    /// The MCP client's roots.
    Roots,
    /// The git repository (or project-file folder) the process works in.
    WorkingRepository,
    /// The bearer token of the request, through the tokens file of `mindex serve`.
    Token,
}

/// The identity a memory operation runs under.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Caller {
    /// The caller's project, lowercased; `None` for an anonymous caller.
    pub project: Option<String>,
    /// The caller's platforms, from the project's own note in the vault (`platforms:`).
    pub platforms: Vec<String>,
    /// Where `project` came from.
    pub source: CallerSource,
    /// The caller's folder (repository root), when known.
    pub dir: Option<PathBuf>,
    /// Whether the caller is the vault itself (writing memories from there is refused).
    pub is_vault: bool,
    /// How the surface learned the identity (said by `health`).
    pub identified_by: IdentifiedBy,
    /// Whether `platforms` were read from the vault ([`crate::Vault::identify`]); the scoped
    /// view identifies a caller only once.
    #[serde(skip)]
    pub(crate) identified: bool,
}

impl Caller {
    /// A caller with no identity: sees general memories only.
    pub fn anonymous() -> Caller {
        Caller {
            project: None,
            platforms: Vec::new(),
            source: CallerSource::None,
            dir: None,
            is_vault: false,
            identified_by: IdentifiedBy::Nothing,
            identified: false,
        }
    }

    /// A caller named explicitly. The name is lowercased; it must be a simple slug.
    pub fn named(project: &str) -> crate::Result<Caller> {
        let p = project.trim().to_lowercase();
        if !is_project_name(&p) {
            return Err(crate::Error::invalid(
                "caller",
                format!("{project:?} is not a project name (letters, digits, `_`, `.`, `-`)"),
            ));
        }
        Ok(Caller {
            project: Some(p),
            source: CallerSource::Explicit,
            identified_by: IdentifiedBy::Given,
            ..Caller::anonymous()
        })
    }

    /// [`Caller::named`] when a name is given, else [`Caller::anonymous`]: how the bindings
    /// turn an optional project argument into a caller.
    pub fn named_or_anonymous(project: Option<&str>) -> crate::Result<Caller> {
        project.map_or_else(|| Ok(Caller::anonymous()), Caller::named)
    }

    /// The identity of a caller running in `dir`: the declared name in the folder's
    /// `.mindex-project` (or `.om-project`), else the folder's name, lowercased.
    pub fn from_dir(dir: &Path, vault_root: &Path) -> Caller {
        let (project, source) = project_of_dir(dir);
        Caller {
            project,
            platforms: Vec::new(),
            source,
            dir: Some(dir.to_path_buf()),
            is_vault: same_path(dir, vault_root),
            identified_by: IdentifiedBy::WorkingRepository,
            identified: false,
        }
    }

    /// The identity of a process working in `cwd`: its repository is the nearest enclosing git
    /// repository, else the vault when `cwd` is inside it, else `cwd` itself.
    pub fn from_cwd(cwd: &Path, vault_root: &Path) -> Caller {
        let cwd = fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
        let vault = fs::canonicalize(vault_root).unwrap_or_else(|_| vault_root.to_path_buf());
        let repo = cwd
            .ancestors()
            .find(|d| d.join(".git").exists())
            .map(Path::to_path_buf)
            .unwrap_or_else(|| {
                if cwd.starts_with(&vault) {
                    vault.clone()
                } else {
                    cwd.clone()
                }
            });
        Caller::from_dir(&repo, &vault)
    }

    /// The identity of a server working in `cwd` whose client gives no roots: the nearest
    /// enclosing git repository, or folder with a `.mindex-project` / `.om-project` file; the
    /// vault itself anywhere inside the vault; `None` when `cwd` is in none of those, so a
    /// server started from an arbitrary folder never takes that folder's name for a project.
    pub fn from_working_repository(cwd: &Path, vault_root: &Path) -> Option<Caller> {
        let cwd = fs::canonicalize(cwd).unwrap_or_else(|_| cwd.to_path_buf());
        let vault = fs::canonicalize(vault_root).unwrap_or_else(|_| vault_root.to_path_buf());
        if cwd.starts_with(&vault) {
            // Anywhere inside the vault (a repository nested in it included): the vault itself.
            return Some(Caller::from_dir(&vault, &vault));
        }
        let repo = cwd.ancestors().find(|d| {
            d.join(".git").exists() || PROJECT_FILES.iter().any(|f| d.join(f).is_file())
        })?;
        Some(Caller::from_dir(repo, &vault))
    }

    /// The identity from an MCP client's roots: only `file://` roots identify (any other scheme,
    /// or a bare path, is ignored); the first of them decides the project; the caller is the
    /// vault when any of them is the vault.
    pub fn from_roots(uris: &[String], vault_root: &Path) -> Caller {
        let paths: Vec<PathBuf> = uris
            .iter()
            .filter(|u| is_file_uri(u))
            .filter_map(|u| uri_to_path(u))
            .collect();
        let Some(first) = paths.first() else {
            return Caller::anonymous();
        };
        let mut c = Caller::from_dir(first, vault_root);
        c.is_vault = paths.iter().any(|p| same_path(p, vault_root));
        c.identified_by = IdentifiedBy::Roots;
        c
    }

    /// The project name, or `unknown` for an anonymous caller (as written into `origin`).
    pub fn label(&self) -> &str {
        self.project.as_deref().unwrap_or("unknown")
    }

    /// The caller's folder under the vault's `projects/`: the project name exactly, then
    /// case-insensitively, then a prefix match either way (`poc` finds `Pocket`), keeping the
    /// folder's real casing. `None` for an anonymous caller or a vault without such a folder.
    /// `record_work` files there; the hooks' briefing lists its open tasks from a code repository.
    pub fn project_folder(&self, vault_root: &Path) -> Option<String> {
        project_dir_for(vault_root, self.project.as_deref())
    }

    /// Whether a note's parsed frontmatter ties it to this caller's project: its `project`, or
    /// an item of its `projects`, is the project name (case-insensitively; a `[[wikilink]]`,
    /// with or without an alias, counts by its target). An anonymous caller owns no note.
    pub fn owns_note(&self, frontmatter: &serde_json::Map<String, serde_json::Value>) -> bool {
        let Some(project) = self.project.as_deref() else {
            return false;
        };
        ["project", "projects"].iter().any(|key| {
            let mut names = Vec::new();
            if let Some(v) = crate::markdown::frontmatter::get_ci(frontmatter, key) {
                strings_in(v, &mut names);
            }
            names
                .iter()
                .any(|n| link_target(n).eq_ignore_ascii_case(project))
        })
    }
}

/// Every string in a frontmatter value, lists (and a `[[link]]` YAML reads as a nested list)
/// flattened; a string holding commas is split at them.
fn strings_in(v: &serde_json::Value, out: &mut Vec<String>) {
    match v {
        serde_json::Value::String(s) => out.extend(s.split(',').map(|p| p.trim().to_string())),
        serde_json::Value::Array(items) => items.iter().for_each(|i| strings_in(i, out)),
        _ => {}
    }
}

/// `[[Target|Alias]]`, `[[Target#Heading]]` and `Target` all give `Target`.
fn link_target(s: &str) -> &str {
    let s = s.trim();
    let s = s
        .strip_prefix("[[")
        .and_then(|r| r.strip_suffix("]]"))
        .unwrap_or(s);
    s.split(['|', '#']).next().unwrap_or(s).trim()
}

/// The caller's folder under `projects/` ([`Caller::project_folder`]): exact name, then
/// case-insensitive, then a prefix match either way; the real folder casing is kept.
pub(crate) fn project_dir_for(vault: &Path, project: Option<&str>) -> Option<String> {
    let p = project?.to_lowercase();
    let mut dirs: Vec<String> = fs::read_dir(vault.join("projects"))
        .ok()?
        .flatten()
        .filter(|e| e.path().is_dir())
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| !n.starts_with('.'))
        .collect();
    dirs.sort();
    if let Some(d) = dirs.iter().find(|d| **d == p) {
        return Some(d.clone());
    }
    if let Some(d) = dirs.iter().find(|d| d.to_lowercase() == p) {
        return Some(d.clone());
    }
    dirs.into_iter().find(|d| {
        let l = d.to_lowercase();
        l.starts_with(&p) || p.starts_with(&l)
    })
}

/// Whether `s` is a simple name: ASCII letters, digits, `_`, `.`, `-`, not `.` or `..`.
pub(crate) fn is_project_name(s: &str) -> bool {
    !s.is_empty()
        && s != "."
        && s != ".."
        && s.chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-'))
}

/// The declared project of `dir`, else its folder name.
fn project_of_dir(dir: &Path) -> (Option<String>, CallerSource) {
    for f in PROJECT_FILES {
        if let Ok(text) = fs::read_to_string(dir.join(f)) {
            let declared = text
                .lines()
                .map(str::trim)
                .find(|l| !l.is_empty() && !l.starts_with('#'))
                .map(str::to_lowercase);
            if let Some(name) = declared.filter(|n| is_project_name(n)) {
                return (Some(name), CallerSource::Declared);
            }
        }
    }
    // A folder name is held to the `--caller` rules; one that fails them names nobody.
    let name = dir
        .file_name()
        .map(|n| n.to_string_lossy().trim().to_lowercase())
        .filter(|n| is_project_name(n));
    match name {
        Some(n) => (Some(n), CallerSource::Folder),
        None => (None, CallerSource::None),
    }
}

/// Normalises a path for comparison: `/` separators, no leading `/` before a drive letter, no
/// trailing slash, lowercase.
pub(crate) fn normalize_path(p: &str) -> String {
    let mut s = p.replace('\\', "/");
    let b = s.as_bytes();
    if b.len() >= 3 && b[0] == b'/' && b[1].is_ascii_alphabetic() && b[2] == b':' {
        s.remove(0);
    }
    while s.len() > 1 && s.ends_with('/') {
        s.pop();
    }
    s.to_lowercase()
}

fn same_path(a: &Path, b: &Path) -> bool {
    let canon = |p: &Path| fs::canonicalize(p).unwrap_or_else(|_| p.to_path_buf());
    normalize_path(&canon(a).to_string_lossy()) == normalize_path(&canon(b).to_string_lossy())
}

/// Percent-decodes `s`, keeping malformed escapes (`100%`) as written.
pub(crate) fn percent_decode(s: &str) -> String {
    let b = s.as_bytes();
    let mut out = Vec::with_capacity(b.len());
    let mut i = 0;
    while i < b.len() {
        if b[i] == b'%'
            && i + 2 < b.len()
            && let (Some(h), Some(l)) = (hex(b[i + 1]), hex(b[i + 2]))
        {
            out.push(h * 16 + l);
            i += 3;
            continue;
        }
        out.push(b[i]);
        i += 1;
    }
    String::from_utf8_lossy(&out).into_owned()
}

fn hex(c: u8) -> Option<u8> {
    (c as char).to_digit(16).map(|d| d as u8)
}

/// Whether `uri` starts with the `file://` scheme (case-insensitive).
fn is_file_uri(uri: &str) -> bool {
    uri.trim()
        .get(..7)
        .is_some_and(|p| p.eq_ignore_ascii_case("file://"))
}

/// Converts a `file://` URI (or a bare path) to a path: `file:///C:/x` and `file://C:/x` both
/// give `C:/x`; a POSIX path keeps its leading `/`; a trailing slash is dropped.
pub(crate) fn uri_to_path(uri: &str) -> Option<PathBuf> {
    let u = uri.trim();
    if u.is_empty() {
        return None;
    }
    let rest = match u.get(..7) {
        Some(p) if p.eq_ignore_ascii_case("file://") => &u[7..],
        _ => u,
    };
    let mut path = percent_decode(rest);
    let b = path.as_bytes();
    if b.len() >= 3 && b[0] == b'/' && b[1].is_ascii_alphabetic() && b[2] == b':' {
        path.remove(0);
    }
    while path.len() > 1 && path.ends_with('/') {
        path.pop();
    }
    (!path.is_empty()).then(|| PathBuf::from(path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_working_repository_needs_git_or_a_project_file() {
        let d = tempfile::tempdir().unwrap();
        let vault = d.path().join("vault");
        fs::create_dir_all(vault.join("brain")).unwrap();
        let plain = d.path().join("downloads/x");
        fs::create_dir_all(&plain).unwrap();
        assert_eq!(Caller::from_working_repository(&plain, &vault), None);

        let repo = d.path().join("Atlas");
        fs::create_dir_all(repo.join(".git")).unwrap();
        fs::create_dir_all(repo.join("src/deep")).unwrap();
        let c = Caller::from_working_repository(&repo.join("src/deep"), &vault).unwrap();
        assert_eq!(c.project.as_deref(), Some("atlas"));
        assert_eq!(c.identified_by, IdentifiedBy::WorkingRepository);
        assert!(!c.is_vault);

        let declared = d.path().join("svc");
        fs::create_dir_all(&declared).unwrap();
        fs::write(declared.join(".mindex-project"), "beacon\n").unwrap();
        let c = Caller::from_working_repository(&declared, &vault).unwrap();
        assert_eq!(c.project.as_deref(), Some("beacon"));

        // Inside the vault (even a repository nested in it): the vault itself.
        assert!(
            Caller::from_working_repository(&vault, &vault)
                .unwrap()
                .is_vault
        );
        fs::create_dir_all(vault.join("brain/.git")).unwrap();
        let c = Caller::from_working_repository(&vault.join("brain"), &vault).unwrap();
        assert!(c.is_vault, "{c:?}");
    }

    #[test]
    fn uris_become_paths() {
        assert_eq!(
            normalize_path(
                &uri_to_path("file:///C:/Dev/atlas")
                    .unwrap()
                    .to_string_lossy()
            ),
            "c:/dev/atlas"
        );
        assert_eq!(
            normalize_path(
                &uri_to_path("file://C:/Dev/atlas")
                    .unwrap()
                    .to_string_lossy()
            ),
            "c:/dev/atlas"
        );
        assert_eq!(
            uri_to_path("file:///home/x/atlas/").unwrap(),
            PathBuf::from("/home/x/atlas")
        );
        assert_eq!(
            uri_to_path("file:///home/x/my%20repo").unwrap(),
            PathBuf::from("/home/x/my repo")
        );
        assert_eq!(
            uri_to_path("file:///home/x/100%").unwrap(),
            PathBuf::from("/home/x/100%")
        );
        assert_eq!(uri_to_path(""), None);
    }

    #[test]
    fn project_from_folder_and_declaration() {
        let d = tempfile::tempdir().unwrap();
        let vault = d.path().join("vault");
        fs::create_dir_all(&vault).unwrap();
        let repo = d.path().join("Atlas");
        fs::create_dir_all(&repo).unwrap();
        let c = Caller::from_dir(&repo, &vault);
        assert_eq!(c.project.as_deref(), Some("atlas"));
        assert_eq!(c.source, CallerSource::Folder);
        fs::write(repo.join(".om-project"), "# comment\nbilling-api\n").unwrap();
        let c = Caller::from_dir(&repo, &vault);
        assert_eq!(c.project.as_deref(), Some("billing-api"));
        assert_eq!(c.source, CallerSource::Declared);
        for bad in ["../escape", "a/b", "with spaces", "\"\"", "   "] {
            fs::write(repo.join(".om-project"), bad).unwrap();
            let c = Caller::from_dir(&repo, &vault);
            assert_eq!(c.project.as_deref(), Some("atlas"), "{bad:?}");
        }
        // .mindex-project wins over .om-project.
        fs::write(repo.join(".mindex-project"), "Pocket\n").unwrap();
        assert_eq!(
            Caller::from_dir(&repo, &vault).project.as_deref(),
            Some("pocket")
        );
    }

    #[test]
    fn vault_itself_and_roots() {
        let d = tempfile::tempdir().unwrap();
        let vault = d.path().join("Vault");
        let nested = vault.join("code/repo");
        fs::create_dir_all(&nested).unwrap();
        let other = d.path().join("beacon");
        fs::create_dir_all(&other).unwrap();
        let uri = |p: &Path| format!("file://{}/", p.display());
        assert!(Caller::from_roots(&[uri(&vault)], &vault).is_vault);
        let c = Caller::from_roots(&[uri(&other), uri(&vault)], &vault);
        assert!(c.is_vault);
        assert_eq!(c.project.as_deref(), Some("beacon"));
        assert!(!Caller::from_roots(&[uri(&nested)], &vault).is_vault);
        assert!(!Caller::from_roots(&[uri(&other)], &vault).is_vault);
        let anon = Caller::from_roots(&[], &vault);
        assert!(!anon.is_vault);
        assert_eq!(anon.project, None);
        // A working folder inside a vault that is not a git repository is the vault.
        assert!(Caller::from_cwd(&vault.join("code"), &vault).is_vault);
        // A git repository nested in the vault is not.
        fs::create_dir_all(nested.join(".git")).unwrap();
        let c = Caller::from_cwd(&nested, &vault);
        assert!(!c.is_vault);
        assert_eq!(c.project.as_deref(), Some("repo"));
    }

    #[test]
    fn only_file_roots_with_valid_names_identify() {
        let d = tempfile::tempdir().unwrap();
        let vault = d.path().join("vault");
        fs::create_dir_all(&vault).unwrap();
        let repo = d.path().join("atlas");
        fs::create_dir_all(&repo).unwrap();
        let file = format!("file://{}", repo.display());
        // Other schemes and bare paths never identify, wherever they stand in the list.
        for other in [
            "https://example.com/atlas",
            "vault://note/atlas",
            "ssh://host/srv/atlas",
            repo.to_str().unwrap(),
        ] {
            let c = Caller::from_roots(&[other.to_string()], &vault);
            assert_eq!(c.project, None, "{other}");
            assert_eq!(c.source, CallerSource::None, "{other}");
            let c = Caller::from_roots(&[other.to_string(), file.clone()], &vault);
            assert_eq!(c.project.as_deref(), Some("atlas"), "{other} then file");
        }
        let upper = format!("FILE://{}", repo.display());
        assert_eq!(
            Caller::from_roots(&[upper], &vault).project.as_deref(),
            Some("atlas"),
            "the scheme is case-insensitive"
        );
        // A folder name outside the `--caller` characters makes the caller anonymous.
        for bad in ["my repo", "répo", "a;b", "x\ty", "$(id)", "a\nb"] {
            let dir = d.path().join(bad);
            fs::create_dir_all(&dir).unwrap();
            let c = Caller::from_roots(&[format!("file://{}", dir.display())], &vault);
            assert_eq!(c.project, None, "{bad:?}");
            assert_eq!(c.source, CallerSource::None, "{bad:?}");
            assert_eq!(Caller::from_dir(&dir, &vault).project, None, "{bad:?}");
            assert!(Caller::named(bad).is_err(), "{bad:?}");
        }
        // A declared name still wins over a bad folder name.
        let dir = d.path().join("bad name");
        fs::create_dir_all(&dir).unwrap();
        fs::write(dir.join(".mindex-project"), "beacon\n").unwrap();
        assert_eq!(
            Caller::from_dir(&dir, &vault).project.as_deref(),
            Some("beacon")
        );
    }

    #[test]
    fn named_callers_are_checked() {
        assert_eq!(
            Caller::named("Atlas").unwrap().project.as_deref(),
            Some("atlas")
        );
        assert!(Caller::named("../x").is_err());
        assert!(Caller::named("").is_err());
    }

    #[test]
    fn a_note_belongs_to_the_project_its_frontmatter_names() {
        let atlas = Caller::named("atlas").unwrap();
        let owns = |fm: &str| {
            let map = crate::markdown::frontmatter(&format!("---\n{fm}\n---\n# N\n")).unwrap();
            atlas.owns_note(&map)
        };
        for fm in [
            "project: atlas",
            "Project: Atlas",
            "project: '[[Atlas]]'",
            "project: [[Atlas|the atlas]]",
            "projects: [beacon, atlas]",
            "projects: beacon, Atlas",
            "projects:\n  - '[[Atlas#Plan]]'",
        ] {
            assert!(owns(fm), "{fm}");
        }
        for fm in [
            "project: atlas-web",
            "project: beacon",
            "title: atlas",
            "projects: []",
        ] {
            assert!(!owns(fm), "{fm}");
        }
        let map = crate::markdown::frontmatter("---\nproject: atlas\n---\n").unwrap();
        assert!(!Caller::anonymous().owns_note(&map));
    }
}
