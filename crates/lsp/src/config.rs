//! The server's settings, from the editor's workspace configuration
//! (section `pomp`) or the initialization options. The instrumentation
//! settings are the command line's options, by the same names
//! ([`pomp_cli::options::INSTRUMENTATION`]): `disable`, `events` (or `pomp`),
//! `interface`, `nosrc`, `keep-untied`.

use pomp_cli::options::{Flag, Value, INSTRUMENTATION};
use pomp_core::instrument::Options;
use serde_json::Value as Json;
use std::time::Duration;

/// The longest a document waits to be analysed after a change when the
/// settings name no wait of their own.
pub const LONGEST_DEBOUNCE: Duration = Duration::from_millis(250);

/// A document whose last analysis took less than this is analysed again
/// as soon as the changes the editor has already sent are applied: the
/// wait from a keystroke to its diagnostics is what the user feels, and an
/// analysis this short costs less than the gap between two keystrokes.
pub const IMMEDIATE_BELOW: Duration = Duration::from_millis(50);

#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Config {
    pub instrument: Options,
    /// How long a document's text must rest before it is analysed. `None`:
    /// not at all when its last analysis took less than
    /// [`IMMEDIATE_BELOW`], else as long as that analysis took, up to
    /// [`LONGEST_DEBOUNCE`], so that typing in a file that is slow to
    /// analyse costs at most half the time of one core. Changes that
    /// arrive together are always analysed once.
    pub debounce: Option<Duration>,
}

impl Config {
    /// The wait after a change to a document whose last analysis took
    /// `last_analysis`.
    pub fn debounce_after(&self, last_analysis: Duration) -> Duration {
        self.debounce.unwrap_or(if last_analysis < IMMEDIATE_BELOW {
            Duration::ZERO
        } else {
            last_analysis.min(LONGEST_DEBOUNCE)
        })
    }
}

impl Config {
    /// Settings as an editor sends them: `{"disable": ["barrier"],
    /// "events": "opari2", "debounce": 50}` or the same under `"pomp"`.
    /// Unknown names and bad values are errors, named; the settings that
    /// are right are taken all the same.
    pub fn from_settings(settings: &Json) -> (Config, Vec<String>) {
        let settings = settings.get("pomp").unwrap_or(settings);
        let mut config = Config::default();
        let mut errors = vec![];
        let Some(entries) = settings.as_object() else {
            if !settings.is_null() {
                errors.push(format!("settings must be an object, not {settings}"));
            }
            return (config, errors);
        };
        for (name, value) in entries {
            if name == "debounce" {
                match value.as_u64() {
                    Some(ms) => config.debounce = Some(Duration::from_millis(ms)),
                    None => errors.push(format!("debounce: expected milliseconds, not {value}")),
                }
                continue;
            }
            let Some(flag) = Flag::find(INSTRUMENTATION, name).filter(|f| f.offered.editor) else {
                errors.push(format!("unknown setting `{name}`"));
                continue;
            };
            if let Err(message) = apply(flag, &mut config.instrument, value) {
                errors.push(format!("{name}: {message}"));
            }
        }
        (config, errors)
    }
}

/// Set one option from its JSON value: `true`/`false` for a switch, a
/// string for a choice, a string or a list of strings for a list.
fn apply(flag: &Flag<Options>, options: &mut Options, value: &Json) -> Result<(), String> {
    match (flag.value, value) {
        (Value::Switch, Json::Bool(true)) => flag.set(options, None),
        (Value::Switch, Json::Bool(false) | Json::Null) => Ok(()),
        (Value::Switch, _) => Err(format!("expected true or false, not {value}")),
        (_, Json::Null) => Ok(()),
        (Value::List { .. }, Json::Array(items)) => items.iter().try_for_each(|item| match item {
            Json::String(text) => flag.set(options, Some(text)),
            _ => Err(format!("expected a list of names, not {value}")),
        }),
        (_, Json::String(text)) => flag.set(options, Some(text)),
        _ => Err(format!("expected a string, not {value}")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use pomp_core::rules::{EventSet, Interface};
    use serde_json::json;

    #[test]
    fn settings_take_the_command_line_names() {
        let (config, errors) = Config::from_settings(&json!({"pomp": {
            "disable": ["barrier", "Task"],
            "pomp": "opari2",
            "interface": "pomp1",
            "nosrc": true,
            "keep-untied": false,
            "debounce": 25,
        }}));
        assert!(errors.is_empty(), "{errors:?}");
        let rules = &config.instrument.rules;
        assert_eq!(
            rules.disable,
            ["barrier".to_string(), "task".to_string()].into()
        );
        assert_eq!(rules.events, EventSet::Opari2);
        assert_eq!(rules.interface, Interface::Pomp1);
        assert!(!rules.keep_untied);
        assert!(!config.instrument.output.line_markers);
        assert_eq!(config.debounce, Some(Duration::from_millis(25)));
        assert_eq!(
            config.debounce_after(Duration::from_secs(1)),
            Duration::from_millis(25)
        );
        let adaptive = Config::default();
        assert_eq!(
            adaptive.debounce_after(Duration::from_millis(7)),
            Duration::ZERO
        );
        assert_eq!(
            adaptive.debounce_after(Duration::from_millis(70)),
            Duration::from_millis(70)
        );
        assert_eq!(
            adaptive.debounce_after(Duration::from_secs(3)),
            LONGEST_DEBOUNCE
        );
        // A comma-separated string is a list too.
        let (config, _) = Config::from_settings(&json!({"disable": "sync, locks"}));
        assert_eq!(
            config.instrument.rules.disable,
            ["locks".to_string(), "sync".to_string()].into()
        );
    }

    #[test]
    fn wrong_settings_are_named_and_the_right_ones_kept() {
        let (config, errors) = Config::from_settings(&json!({
            "interface": "pomp3", "colour": "red", "nosrc": "yes", "events": "opari2"
        }));
        assert_eq!(config.instrument.rules.events, EventSet::Opari2);
        assert_eq!(errors.len(), 3, "{errors:?}");
        assert!(errors
            .iter()
            .any(|e| e.starts_with("interface: unknown value 'pomp3'")));
        assert!(errors.iter().any(|e| e == "unknown setting `colour`"));
        assert!(Config::from_settings(&Json::Null).1.is_empty());
    }
}
