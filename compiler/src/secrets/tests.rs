use super::*;

#[test]
fn words_are_the_pieces_split_whitespace_gives() {
    // Every character is whitespace to `whitespace_len` exactly when it is to `char`.
    for c in (0..=0x10FFFF).filter_map(char::from_u32) {
        let mut buf = [0; 4];
        let encoded = c.encode_utf8(&mut buf).as_bytes();
        let expected = if c.is_whitespace() { encoded.len() } else { 0 };
        assert_eq!(whitespace_len(encoded), expected, "U+{:04X}", c as u32);
    }
    for text in ["", " ", "a", " a  b\t", "\u{a0}é\u{2003}x\u{3000}\u{85}", "sk-\u{205f}\u{1680}é\u{180e}y\n"] {
        let ours: Vec<&str> = words(text).map(|(start, end, _)| &text[start..end]).collect();
        assert_eq!(ours, text.split_whitespace().collect::<Vec<_>>(), "{text:?}");
    }
}

#[test]
fn references_and_settings_are_kept() {
    for (key, value) in [
        (Some("GITHUB_TOKEN"), "${GITHUB_TOKEN}"),
        (Some("Authorization"), "Bearer ${API_TOKEN}"),
        (Some("API_KEY"), "${API_KEY:-}"),
        (Some("LOG_LEVEL"), "debug"),
        (Some("PATH"), "/usr/bin:/bin"),
        (Some("PWD_DIR"), "/tmp"),
        (Some("DEBUG_AUTH"), "true"),
        (None, "--port=8080"),
        (None, "https://api.example.com/mcp"),
        (None, "postgres://app@localhost/db"),
        (None, "https://example.com/t/123e4567-e89b-12d3-a456-426614174000"),
        (None, "github:org/repo#0123456789abcdef0123456789abcdef01234567"),
        (None, "--token ${GITHUB_TOKEN}"),
        (None, "--token=$GITHUB_TOKEN"),
        (None, "--api-key <your-key>"),
        (None, "--token-file /run/secrets/token"),
        (None, "--max-tokens 4096"),
        (None, "--password-stdin"),
        (None, "https://api.example.com/mcp?token=${TOKEN}&region=eu"),
        (None, "https://api.example.com/search?key=*"),
        (None, "Bash(curl -H \"Authorization: Bearer $TOKEN\" *)"),
        (None, "Bearer tokens are sent in the header"),
        (None, "Author: someone"),
        (None, "https://user@bitbucket.org/team/repo.git"),
        (None, "https://x:${GIT_TOKEN}@git.example.com/r.git"),
        (None, "psql -p 5432"),
    ] {
        assert!(!looks_secret(key, value), "{key:?} = {value} is not a secret");
    }
}

#[test]
fn literal_credentials_are_found() {
    for (key, value) in [
        (Some("GITHUB_TOKEN"), "ghp_0123456789abcdefABCDEF0123456789abcd"),
        (Some("Authorization"), "Bearer abc.def.ghi"),
        (Some("DB_PASSWORD"), "hunter2"),
        (Some("X-Api-Key"), "k-7f3a"),
        (Some("OPENAI"), "sk-proj-0123456789abcdefghij"),
        (None, "--token=ghp_0123456789abcdefABCDEF0123456789abcd"),
        (None, "postgres://app:s3cret@localhost/db"),
        (None, "https://hooks.example.com/T000/B000/XXXXXXXXXXXXXXXXXXXXXXXX12345678"),
        (None, "deploy --password hunter2horse"),
        (None, "--client_secret=abc123def"),
        (None, "DB_PASSWORD=correct-horse"),
        (None, "https://api.example.com/v1?region=eu&api_key=Zq9mX2pLwQ"),
        (None, "https://blob.example.com/f?sv=2024&sig=Ab12Cd%2Bef"),
        (None, "https://app.example.com/cb#access_token=Tk7Qp2Rm9"),
        (None, "Bash(curl -H \"Authorization: Bearer abcDEF123xyz\" https://api.example.com/*)"),
        (None, "Bash(curl -H 'X-Api-Key: k7f3a9' *)"),
        (None, "Bash(mysql -uroot -pS3cretPass:*)"),
        (None, "sshpass -p hunter2 ssh host"),
        (None, "https://deploy:Tk7Qp2Rm9xyz@git.example.com/team/mk.git"),
        (None, "https://ghp_0123456789abcdefABCDEF0123456789abcd@github.com/o/r.git"),
    ] {
        assert!(looks_secret(key, value), "{key:?} = {value} is a secret");
    }
}

#[test]
fn tokens_are_found_inside_text_and_replaced_alone() {
    let text = "Deploy with key sk-ant-api03-PLANTEDxxxxxxxxxxxxxxxxxxxxxxxx, then (ghp_0123456789abcdefABCDEF0123456789abcd).";
    let spans: Vec<&str> = token_spans(text).iter().map(|s| &text[s.start..s.end]).collect();
    assert_eq!(spans, ["sk-ant-api03-PLANTEDxxxxxxxxxxxxxxxxxxxxxxxx", "ghp_0123456789abcdefABCDEF0123456789abcd"]);
    let redacted = redact_words(text).expect("has tokens");
    let hash = |t: &str| redact(t);
    assert_eq!(
        redacted,
        format!(
            "Deploy with key {}, then ({}).",
            hash("sk-ant-api03-PLANTEDxxxxxxxxxxxxxxxxxxxxxxxx"),
            hash("ghp_0123456789abcdefABCDEF0123456789abcd")
        )
    );
    assert_eq!(redact_words("Deploy the app to staging: see https://example.com/a?b=c"), None);
    assert_eq!(token_spans("${GITHUB_TOKEN_0123456789abcdefABCDEF0123456789}"), []);
    assert_eq!(token_spans("url https://u:pw@example.com/x").len(), 1);
    assert_eq!(
        mask_words("rule `Bash(curl ghp_0123456789abcdefABCD)`"),
        format!("rule `Bash(curl {})`", "*".repeat(24))
    );
}

#[test]
fn only_the_secret_part_of_a_placed_secret_is_marked() {
    let json = r#"{ "API_KEY": "k7f3a9Qx", "LOG": "x", "api-token": { "type": "secret" } }"#;
    assert_eq!(token_spans(json).iter().map(|s| &json[s.start..s.end]).collect::<Vec<_>>(), ["k7f3a9Qx"]);
    let found =
        |text: &str| -> Vec<String> { token_spans(text).iter().map(|s| text[s.start..s.end].to_string()).collect() };
    assert_eq!(found("https://deploy:Tk7Qp2Rm9xyz@git.example.com/team/mk.git"), ["Tk7Qp2Rm9xyz"]);
    assert_eq!(found("https://h.example.com/p?access_token=Tk7Qp2Rm9&sig=Ab12Cd&page=2"), ["Tk7Qp2Rm9", "Ab12Cd"]);
    assert_eq!(found("curl -H \"Authorization: Bearer abcDEF123xyz\" https://x"), ["abcDEF123xyz"]);
    assert_eq!(found("run --token=\"s3cr3t-value\" --verbose"), ["s3cr3t-value"]);
    assert_eq!(found("a https://u:pw@example.com/x b"), ["pw"]);
    // Hashing the password keeps the rest of the URL readable, and a hashed one is not found again.
    let kept = redact_words("https://deploy:Tk7Qp2Rm9xyz@git.example.com/mk.git").expect("a secret");
    assert!(kept.starts_with("https://deploy:sha256:") && kept.ends_with("@git.example.com/mk.git"), "{kept}");
    assert_eq!(found(&kept), Vec::<String>::new());
}

#[test]
fn webhook_urls_and_connection_strings_hide_their_credential() {
    let found =
        |text: &str| -> Vec<String> { token_spans(text).iter().map(|s| text[s.start..s.end].to_string()).collect() };
    let slack = "https://hooks.slack.com/services/T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx";
    assert_eq!(found(slack), ["T0AAAAAAA/B0BBBBBBB/abcdefghijklmnopqrstuvwx"]);
    assert!(looks_secret(Some("SLACK_URL"), slack));
    assert_eq!(found("https://discord.com/api/webhooks/123/tok-EN_x?wait=true"), ["123/tok-EN_x"]);
    assert_eq!(
        found("https://acme.webhook.office.com/webhookb2/abc@def/IncomingWebhook/x/y"),
        ["abc@def/IncomingWebhook/x/y"]
    );
    // A webhook URL under a key that says so, wherever it points; not a setting beside it.
    assert!(looks_secret(Some("ALERTS_WEBHOOK_URL"), "https://chat.example.com/hooks/x7Kq2mP9aZ"));
    assert!(!looks_secret(Some("WEBHOOK_TIMEOUT"), "30"));
    assert!(!looks_secret(Some("WEBHOOK_BASE_URL"), "http://localhost:3000"));
    assert!(!looks_secret(Some("WEBHOOK_URL"), "https://example.com/webhook"));
    assert!(!looks_secret(None, "https://hooks.slack.com/services/${SLACK_PATH}"));
    assert!(!looks_secret(None, "https://hooks.slack.com/"));
    let ado = "Server=db.example.com;User Id=sa;Password=hunter2;";
    assert_eq!(found(ado), ["hunter2"]);
    assert_eq!(found("Driver={ODBC};Server=db;Uid=app;Pwd=s3cret;Encrypt=yes"), ["s3cret"]);
    assert_eq!(found("Server=db;Password=\"a;b\";Database=x"), ["a;b"]);
    assert_eq!(found("Server=db;Password=\"a;b c\";Database=x"), ["a;b", "c\";Database=x"]);
    assert_eq!(
        found("DefaultEndpointsProtocol=https;AccountName=acme;AccountKey=Zm9vYmFy+/==;EndpointSuffix=core"),
        ["Zm9vYmFy+/=="]
    );
    assert_eq!(found("jdbc:sqlserver://db:1433;databaseName=app;user=sa;password=hunter2"), ["hunter2"]);
    assert_eq!(found("Server=db;Password=${DB_PASSWORD};"), Vec::<String>::new());
    assert_eq!(found("Server=db;Database=app;Trusted_Connection=True;"), Vec::<String>::new());
    assert_eq!(secret_args(Some("sql-mcp"), &["--connection-string", ado]), [false, true]);
    assert_eq!(secret_args(Some("sql-mcp"), &["Server=db;User Id=sa;Password=hunter2;"]), [true]);
}

#[test]
fn short_password_words_and_secret_keys_name_credentials() {
    for name in ["DB_PASS", "SMTP_PASS", "MYSQL_PWD", "LDAP_BIND_PW", "ADMIN_PW", "SIGNING_KEY", "ENCRYPTION_KEY"] {
        assert!(looks_secret(Some(name), "hunter2horse"), "{name} names a credential");
    }
    for name in ["PASSAGE", "COMPASS", "PUBLIC_KEY", "SORT_KEY", "PW_DIR", "KEYBOARD"] {
        assert!(!looks_secret(Some(name), "hunter2horse"), "{name} does not");
    }
    let args = ["--db-pass", "hunter2horse", "REDIS_PASS=hunter2horse", "Authorization=Bearer", "hunter2horse"];
    assert_eq!(secret_args(Some("db-mcp"), &args), [false, true, true, false, true]);
    assert_eq!(secret_args(Some("api-mcp"), &["--auth-header=Token", "hunter2horse"]), [false, true]);
    assert_eq!(secret_args(Some("api-mcp"), &["--cookie", "session=hunter2horse"]), [false, true]);
    assert!(redact_rule("Bash(MYSQL_PWD=hunter2horse mysql -u root)").starts_with("Bash(sha256:"));
    assert!(redact_rule("Bash(export DB_PASS=hunter2horse)").starts_with("Bash(sha256:"));
}

#[test]
fn names_made_of_words_are_not_generated_secrets() {
    for name in [
        "mcp__context7__resolve-library-id",
        "mcp__plugin_context7_context7__get-library-docs",
        "eslint-plugin-react-hooks-5.2.0-canary.3",
        "Bash(mcp__github_enterprise2__create_pull_request_review)",
    ] {
        assert!(!looks_secret(None, name), "{name} is a name");
    }
    assert!(looks_secret(None, "Zq9mX2pLwQ7rT4vB8nK3sD6fH1jG5hY0"), "a 32-character run is generated");
}

#[test]
fn arguments_are_read_as_a_command_line() {
    let args = ["--password", "hunter2horse", "--port", "5432", "--header", "Authorization: Bearer Zq9mX2pL"];
    assert_eq!(secret_args(Some("db-mcp"), &args), [false, true, false, false, false, true]);
    assert_eq!(secret_args(Some("/usr/bin/mysql"), &["-uroot", "-pS3cret"]), [false, true]);
    assert_eq!(secret_args(Some("mysql"), &["-p", "mydb"]), [false, false]);
    assert_eq!(secret_args(Some("redis-cli"), &["-a", "hunter2"]), [false, true]);
    assert_eq!(secret_args(Some("server"), &["-p", "8080", "--token", "${TOKEN}"]), [false; 4]);
}

#[test]
fn rules_keep_their_tool() {
    let rule = "Bash(curl -H 'x-api-key: sk-ant-api03-PLANTEDxxxxxxxxxxxxxxxxxxxxxxxx' *)";
    let kept = redact_rule(rule);
    assert!(kept.starts_with("Bash(sha256:") && kept.ends_with(')') && kept.len() == "Bash(sha256:)".len() + 64);
    assert_eq!(hashed_rule_tool(&kept), Some("Bash"));
    assert_eq!(hashed_rule_tool("Bash(sha256:abc)"), None);
    assert!(is_redacted(&redact_rule("sk-ant-api03-PLANTEDxxxxxxxxxxxxxxxxxxxxxxxx")));
}

#[test]
fn hashes_are_sha256() {
    assert_eq!(sha256_hex(b"abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    assert!(redact("x").starts_with("sha256:"));
}
