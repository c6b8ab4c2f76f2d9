//! API keys and their roles, read from a file (`KEY ROLE[,ROLE]` a line; roles `upload`
//! and `symbolize`), never from the command line, and checked in constant time.

use std::path::Path;

use sha2::{Digest, Sha256};
use subtle::ConstantTimeEq;

use crate::{Error, Location, Result};

/// What a key may do.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Roles {
    /// `POST /api/symbols-ranges` and `/api/symbols-returnpads`.
    pub upload: bool,
    /// `POST /api/symbolize`.
    pub symbolize: bool,
}

/// The keys the service accepts. Only their SHA-256 digests are kept: comparing digests
/// of equal length in constant time tells nothing about a key's length or prefix.
#[derive(Clone, Default)]
pub struct Keys {
    keys: Vec<([u8; 32], Roles)>,
}

impl std::fmt::Debug for Keys {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Keys({} keys)", self.keys.len())
    }
}

impl Keys {
    /// Reads a keys file: one `KEY ROLE[,ROLE]` a line; blank lines and lines starting
    /// with `#` are skipped.
    pub fn read(path: &Path) -> Result<Keys> {
        let text = std::fs::read_to_string(path).map_err(|e| Error::io(path, e))?;
        Keys::parse(&text, path)
    }

    /// Parses the text of a keys file named `input` in errors.
    pub fn parse(text: &str, input: &Path) -> Result<Keys> {
        let mut keys = Keys::default();
        for (n, line) in text.lines().enumerate() {
            let line = line.trim();
            if line.is_empty() || line.starts_with('#') {
                continue;
            }
            let at = Location::Line(n as u64 + 1);
            let bad = |what: &str| Error::malformed(input, at, what.to_owned());
            let mut fields = line.split_whitespace();
            let (Some(key), Some(roles), None) = (fields.next(), fields.next(), fields.next())
            else {
                return Err(bad("expected `KEY ROLE[,ROLE]`"));
            };
            let mut granted = Roles::default();
            for role in roles.split(',') {
                match role {
                    "upload" => granted.upload = true,
                    "symbolize" => granted.symbolize = true,
                    _ => return Err(bad("a role is `upload` or `symbolize`")),
                }
            }
            keys.keys.push((digest(key), granted));
        }
        Ok(keys)
    }

    /// Whether no key is configured.
    pub fn is_empty(&self) -> bool {
        self.keys.is_empty()
    }

    /// The roles of `presented`, or `None` for an unknown key. Every configured key is
    /// compared, so the time taken does not depend on which one matched.
    pub fn roles(&self, presented: &str) -> Option<Roles> {
        let wanted = digest(presented);
        let mut found = None;
        for (key, roles) in &self.keys {
            if bool::from(key.ct_eq(&wanted)) {
                found = Some(*roles);
            }
        }
        found
    }
}

fn digest(key: &str) -> [u8; 32] {
    Sha256::digest(key.as_bytes()).into()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn roles_come_from_the_file_and_unknown_keys_have_none() {
        let keys = Keys::parse(
            "# comment\nup upload\nboth upload,symbolize\n\nsee symbolize\n",
            Path::new("keys"),
        )
        .unwrap();
        assert_eq!(
            keys.roles("up"),
            Some(Roles {
                upload: true,
                symbolize: false
            })
        );
        assert_eq!(
            keys.roles("both"),
            Some(Roles {
                upload: true,
                symbolize: true
            })
        );
        assert!(keys.roles("see").unwrap().symbolize);
        assert_eq!(keys.roles("u"), None);
        assert_eq!(keys.roles(""), None);
    }

    #[test]
    fn a_bad_line_is_named() {
        let e = Keys::parse("k upload\nk2 admin\n", Path::new("keys")).unwrap_err();
        assert_eq!(e.location(), Location::Line(2));
        assert!(Keys::parse("lonely\n", Path::new("keys")).is_err());
    }
}
