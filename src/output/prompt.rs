//! Confirmation before changing state, only when a person is there: stdin
//! and stderr are terminals. Without a terminal, state changes need `--yes`
//! (checked before anything is contacted).

use std::io::IsTerminal;

use crate::error::{Error, Result};

/// Whether prompts can be shown.
pub fn interactive() -> bool {
    std::io::stdin().is_terminal() && std::io::stderr().is_terminal()
}

/// Fails early (exit 2) when a state-changing command runs without a
/// terminal and without `--yes`.
pub fn require_consent(yes: bool, dry_run: bool, what: &str) -> Result<()> {
    if yes || dry_run || interactive() {
        Ok(())
    } else {
        Err(Error::usage(format!(
            "refusing to {what} without --yes: not running on a terminal, so nobody can confirm (use --dry-run to see the plan)"
        )))
    }
}

/// A person at the prompt said no (or typed something other than what was
/// asked): the one answer every command gives to it, a refusal (exit 1),
/// nothing changed. Consent that nobody could give (no terminal, no `--yes`
/// or typed-confirmation flag) is a usage error instead (exit 2): the flag
/// is what is missing.
pub fn not_confirmed() -> Error {
    Error::refused("not confirmed; nothing changed")
}

/// Asks a yes/no question on stderr (default no). `true` with `--yes`.
pub fn confirm(yes: bool, question: &str) -> Result<bool> {
    if yes {
        return Ok(true);
    }
    dialoguer::Confirm::new()
        .with_prompt(question)
        .default(false)
        .interact()
        .map_err(|e| Error::usage(format!("cannot ask for confirmation: {e}")))
}

/// [`confirm`] off the async workers: dialoguer blocks its thread until the
/// person answers, and the runtime's two workers must keep serving the
/// port-forwards and connections already open.
pub async fn confirm_async(question: String) -> Result<bool> {
    tokio::task::spawn_blocking(move || confirm(false, &question))
        .await
        .map_err(|e| Error::usage(format!("cannot ask for confirmation: {e}")))?
}

/// [`typed_confirmation`] off the async workers (see [`confirm_async`]).
pub async fn typed_confirmation_async(expected: String, question: String) -> Result<bool> {
    tokio::task::spawn_blocking(move || typed_confirmation(&expected, &question))
        .await
        .map_err(|e| Error::usage(format!("cannot ask for confirmation: {e}")))?
}

/// Consent by typing `expected`: given in a flag (`given`), else asked on
/// a terminal. A wrong word at the prompt is a "no" ([`not_confirmed`],
/// exit 1); a flag naming something else, or nobody to ask, is the usage
/// error `missing` (exit 2): the flag's value is what is missing.
pub async fn typed_consent(
    given: Option<&str>,
    expected: &str,
    question: String,
    missing: String,
) -> Result<()> {
    match given {
        Some(typed) if typed == expected => Ok(()),
        None if interactive() => {
            if typed_confirmation_async(expected.to_string(), question).await? {
                Ok(())
            } else {
                Err(not_confirmed())
            }
        }
        _ => Err(Error::usage(missing)),
    }
}

/// Asks the person to type `expected` to go on.
pub fn typed_confirmation(expected: &str, question: &str) -> Result<bool> {
    let typed: String = dialoguer::Input::new()
        .with_prompt(format!("{question} Type {expected:?} to confirm"))
        .allow_empty(true)
        .interact_text()
        .map_err(|e| Error::usage(format!("cannot ask for confirmation: {e}")))?;
    Ok(typed.trim() == expected)
}

/// The password for a user given without one: asked on the terminal
/// without echo, as etcdctl does. Without a terminal, a refusal that says
/// where a password can be given.
pub fn password(user: &str, named_by: &str) -> Result<crate::secret::Secret> {
    let given = match named_by {
        "ETCDCTL_USER" => format!("ETCDCTL_USER={user}"),
        flag => format!("{flag} {user}"),
    };
    if !interactive() {
        return Err(Error::usage(format!(
            "{given} gives no password and there is no terminal to ask for it: pass --password, or set ETCDCTL_PASSWORD"
        )));
    }
    dialoguer::Password::new()
        .with_prompt(format!("Password for etcd user {user}"))
        .interact()
        .map(crate::secret::Secret::new)
        .map_err(|e| Error::usage(format!("cannot read the password for {given}: {e}")))
}
