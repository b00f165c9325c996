//! A password as the command line, a variable or a prompt gave it, and
//! `--user NAME[:PASSWORD]` split at its colon. A leaf module: the clap
//! definitions, the settings that turn them into a target and the prompt
//! all hold these without depending on each other.

use std::fmt;

/// A password as given on the command line, in a variable or typed at a
/// prompt. Its `Debug` never shows it, so a stray `{:?}` of the parsed
/// flags cannot leak it.
#[derive(Clone, PartialEq, Eq)]
pub struct Secret(String);

impl Secret {
    pub fn new(text: impl Into<String>) -> Self {
        Secret(text.into())
    }

    /// The password itself, for the one place that sends it.
    pub fn expose(&self) -> &str {
        &self.0
    }
}

impl fmt::Debug for Secret {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("Secret(<redacted>)")
    }
}

/// `--user NAME[:PASSWORD]` (or `ETCDCTL_USER`) as given: split at the
/// first colon, as etcdctl does, so that the password part is held as a
/// [`Secret`] from the moment it is parsed.
#[derive(Clone, PartialEq, Eq)]
pub struct UserSpec {
    pub name: String,
    pub password: Option<Secret>,
}

/// `--user` as clap reads it: every text is a user spec.
impl std::str::FromStr for UserSpec {
    type Err = std::convert::Infallible;

    fn from_str(text: &str) -> Result<Self, Self::Err> {
        Ok(UserSpec::parse(text))
    }
}

impl UserSpec {
    pub fn parse(text: &str) -> UserSpec {
        match text.split_once(':') {
            Some((name, password)) => UserSpec {
                name: name.to_string(),
                password: Some(Secret::new(password)),
            },
            None => UserSpec {
                name: text.to_string(),
                password: None,
            },
        }
    }
}

impl fmt::Debug for UserSpec {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("UserSpec")
            .field("name", &self.name)
            .field("password", &self.password)
            .finish()
    }
}
