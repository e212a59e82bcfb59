//! The TOML configuration.

use fundraising_sandbox::{Config, Secret, DEFAULT_CONFIG_TOML};

#[test]
fn the_default_is_exactly_the_documented_toml() {
    let parsed = Config::from_toml(DEFAULT_CONFIG_TOML).expect("default TOML parses");
    assert_eq!(parsed, Config::default());
    let app = parsed.application("demo-app").expect("demo-app");
    assert_eq!(app.secret.expose(), "demo-secret");
    assert_eq!(app.home_page, "http://127.0.0.1:8080/");
    let user = parsed.user("demo@example.org").expect("demo user");
    assert_eq!(user.name, "Demo Fundraiser");
    assert_eq!(user.password.expose(), "demo-password");
    assert_eq!(parsed.applications.len(), 1);
    assert_eq!(parsed.users.len(), 1);
}

#[test]
fn secrets_never_show_in_debug_output() {
    let text = format!("{:?}", Config::default());
    assert!(!text.contains("demo-secret"), "{text}");
    assert!(!text.contains("demo-password"), "{text}");
    assert!(text.contains("[redacted]"));
    assert_eq!(format!("{:?}", Secret::new("x")), "[redacted]");
}

#[test]
fn authentication_checks_the_password_and_ignores_email_case() {
    let config = Config::default();
    assert!(config
        .authenticate("Demo@Example.org", "demo-password")
        .is_some());
    assert!(config
        .authenticate("demo@example.org", "demo-passwor")
        .is_none());
    assert!(config
        .authenticate("demo@example.org", "demo-password2")
        .is_none());
    assert!(config
        .authenticate("nobody@example.org", "demo-password")
        .is_none());
}

#[test]
fn inconsistent_configurations_are_refused() {
    for bad in [
        "[[applications]]\napp_id = \"a\"\nsecret = \"s\"\n",
        "[[applications]]\napp_id = \"a\"\nsecret = \"s\"\nhome_page = \"ftp://x/\"\n",
        "[[applications]]\napp_id = \"a/b\"\nsecret = \"s\"\nhome_page = \"http://x/\"\n",
        "[[applications]]\napp_id = \"a\"\nsecret = \"s\"\nhome_page = \"http://x/\"\n[[applications]]\napp_id = \"a\"\nsecret = \"t\"\nhome_page = \"http://y/\"\n",
        "[[users]]\nemail = \"a@x\"\npassword = \"p\"\nname = \"A\"\n[[users]]\nemail = \"A@x\"\npassword = \"q\"\nname = \"B\"\n",
        "[[users]]\nemail = \"a@x\"\npassword = \"p\"\nname = \"A\"\nrole = \"admin\"\n",
        "not toml at all [",
    ] {
        assert!(Config::from_toml(bad).is_err(), "{bad}");
    }
}

#[test]
fn a_config_file_is_loaded() {
    let dir = tempfile::tempdir().expect("dir");
    let path = dir.path().join("sandbox.toml");
    std::fs::write(
        &path,
        "[[applications]]\napp_id = \"shop\"\nsecret = \"s3\"\nhome_page = \"https://shop.example/cb\"\n",
    )
    .expect("write");
    let config = Config::load(&path).expect("load");
    assert!(config.application("shop").is_some());
    assert!(config.application("demo-app").is_none());
    assert!(config.users.is_empty());
    assert!(Config::load(&dir.path().join("missing.toml")).is_err());
}
