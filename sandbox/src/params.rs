//! URL-encoded parameters (query strings and form bodies) with repeated-name detection.

/// Decoded `name=value` pairs in their original order.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Params(Vec<(String, String)>);

impl Params {
    /// Decodes `application/x-www-form-urlencoded` text (a query string or a form body).
    pub fn parse(raw: &str) -> Result<Self, String> {
        serde_urlencoded::from_str::<Vec<(String, String)>>(raw)
            .map(Self)
            .map_err(|e| format!("malformed parameters: {e}"))
    }

    /// The value of `name`; an error when the parameter is repeated.
    pub fn get(&self, name: &str) -> Result<Option<&str>, String> {
        self.find(|n| n == name, name)
    }

    /// Like [`Params::get`] with the name compared case-insensitively.
    pub fn get_ignore_case(&self, name: &str) -> Result<Option<&str>, String> {
        self.find(|n| n.eq_ignore_ascii_case(name), name)
    }

    /// The first value of `name`, even when repeated.
    pub fn first(&self, name: &str) -> Option<&str> {
        self.0
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }

    /// Every `(name, value)` pair, in order.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(n, v)| (n.as_str(), v.as_str()))
    }

    /// Whether `name` occurs.
    pub fn contains(&self, name: &str) -> bool {
        self.0.iter().any(|(n, _)| n == name)
    }

    fn find(&self, matches: impl Fn(&str) -> bool, name: &str) -> Result<Option<&str>, String> {
        let mut found = self.0.iter().filter(|(n, _)| matches(n));
        let first = found.next().map(|(_, v)| v.as_str());
        if found.next().is_some() {
            return Err(format!("parameter {name} is repeated"));
        }
        Ok(first)
    }
}
