//! `capc serve` asking the client's user where Claude Code would ask (MCP elicitation): the
//! Skill tool for a skill with `allowed-tools`, a `!` command, a gateway call no rule allows;
//! the answers' effect (once, for the session, always: saved where Claude Code saves it), and
//! the refusal naming the rule to add when the client cannot be asked.

use super::*;

/// What Claude Code tells the model when its user answers No.
const REJECTED: &str = "The user doesn't want to proceed with this tool use.";

/// A project where Claude Code would ask twice: skill `deploy` declares `allowed-tools` (so the
/// Skill tool needs an allow rule) and its `!` command runs `./count.sh` (a command no rule
/// allows), which appends a line to `ran.txt`; command `/stamp` has the same command. `ran.txt`
/// counts the runs. A third command appends to it by a redirection, which Claude Code asks
/// about whatever the rules say: no allow rule can lift it, so it is not asked about.
fn asking_project(settings: Option<Value>) -> tempfile::TempDir {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    std::fs::create_dir_all(root.join(".claude/skills/deploy")).expect("mkdir");
    std::fs::create_dir_all(root.join(".claude/commands")).expect("mkdir");
    std::fs::write(
        root.join(".claude/skills/deploy/SKILL.md"),
        "---\ndescription: Deploy the app to staging\nallowed-tools: Bash(npm run *)\n---\nDeploy. !`./count.sh`\n",
    )
    .expect("write");
    std::fs::write(root.join(".claude/commands/stamp.md"), "Stamped: !`./count.sh`\n").expect("write");
    std::fs::write(root.join(".claude/commands/redirect.md"), "Redirected: !`echo run >> ran.txt`\n").expect("write");
    std::fs::write(root.join("count.sh"), "#!/bin/sh\necho run >> ran.txt\n").expect("write");
    Command::new("chmod").arg("+x").arg(root.join("count.sh")).status().expect("chmod");
    if let Some(settings) = settings {
        std::fs::write(root.join(".claude/settings.json"), settings.to_string()).expect("write");
    }
    dir
}

fn runs(root: &Path) -> usize {
    std::fs::read_to_string(root.join("ran.txt")).map_or(0, |t| t.lines().count())
}

fn text_of(answer: &Value) -> String {
    answer["ok"]["content"][0]["text"].as_str().unwrap_or_default().to_string()
}

/// The questions a "questions" step returned: each one's message and its choices' labels.
fn asked(answer: &Value) -> Vec<(String, Vec<String>)> {
    let questions = answer["ok"].as_array().unwrap_or_else(|| panic!("questions: {answer}"));
    questions
        .iter()
        .map(|q| {
            assert_eq!(q["mode"], "form", "{q}");
            let choices = q["requestedSchema"]["properties"]["answer"]["oneOf"].as_array().expect("choices");
            let labels = choices.iter().map(|c| c["title"].as_str().expect("title").to_string()).collect();
            (q["message"].as_str().expect("message").to_string(), labels)
        })
        .collect()
}

/// A client that answers elicitation is asked where Claude Code asks (the Skill tool for a
/// skill with `allowed-tools`, then the skill's `!` command), in Claude Code's words; "Yes"
/// holds for that call only, "Allow for this session" for every later call of the run.
pub(super) fn asks_once_or_for_the_session() {
    let dir = asking_project(None);
    let root = dir.path();
    lock(root);
    let plan = json!([
        {"op": "answers", "with": ["yes", "yes"]},
        {"op": "call_tool", "name": "Skill", "arguments": {"skill": "deploy"}},
        {"op": "questions"},
        {"op": "call_tool", "name": "Skill", "arguments": {"skill": "deploy"}},
        {"op": "questions"},
        {"op": "answers", "with": ["yes-session", "yes-session"]},
        {"op": "call_tool", "name": "Skill", "arguments": {"skill": "deploy"}},
        {"op": "questions"},
        {"op": "call_tool", "name": "Skill", "arguments": {"skill": "deploy"}},
        {"op": "get_prompt", "name": "stamp", "arguments": {}},
        {"op": "questions"},
        {"op": "answers", "with": ["yes"]},
        {"op": "get_prompt", "name": "redirect", "arguments": {}},
        {"op": "questions"},
    ]);
    let a = sdk_stdio(&plan, &[root.to_str().expect("utf-8"), "--trust"]);
    assert_eq!(a[1]["ok"]["isError"], false, "{}", a[1]);
    assert!(text_of(&a[1]).starts_with("Launching skill: deploy"), "{}", a[1]);
    let questions = asked(&a[2]);
    assert_eq!(questions.len(), 2, "the skill, then its `!` command: {}", a[2]);
    let shown = root.display().to_string();
    assert_eq!(
        questions[0].0,
        "deploy\nClaude may use instructions, code, or files from this Skill.\nDeploy the app to staging\nDo you want to proceed?"
    );
    assert_eq!(
        questions[0].1,
        ["Yes", "Allow for this session", &format!("Yes, and don't ask again for deploy in {shown}"), "No"]
    );
    assert!(questions[1].0.starts_with("Bash command\n./count.sh\n"), "{}", questions[1].0);
    assert!(questions[1].0.ends_with("\nDo you want to proceed?"), "{}", questions[1].0);
    assert_eq!(questions[1].1[2], format!("Yes, and don't ask again for ./count.sh commands in {shown}"));
    // "Yes" held for that call only: asked again, and dismissed (no answer left).
    assert_eq!(a[3]["ok"]["isError"], true, "{}", a[3]);
    assert!(text_of(&a[3]).starts_with(REJECTED), "{}", a[3]);
    assert_eq!(asked(&a[4]).len(), 1, "the skill is asked about again: {}", a[4]);
    assert_eq!(a[6]["ok"]["isError"], false, "{}", a[6]);
    assert_eq!(asked(&a[7]).len(), 2, "{}", a[7]);
    // For the session: the same skill and the same command, in a prompt too, without a question.
    assert_eq!(a[8]["ok"]["isError"], false, "{}", a[8]);
    assert!(message_texts(&a[9])[1].contains("Stamped: "), "{}", a[9]);
    assert_eq!(asked(&a[10]).len(), 0, "{}", a[10]);
    let refused = a[12]["error"]["message"].as_str().unwrap_or_default();
    assert!(refused.contains("Output redirection to"), "{}", a[12]);
    assert_eq!(asked(&a[13]).len(), 0, "a question no answer could settle is not asked: {}", a[13]);
    assert_eq!(runs(root), 4, "the command ran for each call allowed");
    assert!(!root.join(".claude/settings.local.json").exists(), "nothing is saved but an always answer");
}

/// "Always" adds the rule to `.claude/settings.local.json` (made or kept as Claude Code keeps
/// it), holds at once, and in a later run of the same lock; in that folder untrusted, it is not
/// offered and the saved rules do not hold (Claude Code ignores them there).
pub(super) fn always_saves_the_rule() {
    let dir = asking_project(None);
    let root = dir.path();
    let local = root.join(".claude/settings.local.json");
    std::fs::write(&local, "{\"env\": {\"KEEP\": \"1\"}, \"permissions\": {\"deny\": [\"Bash(rm *)\"]}}\n")
        .expect("write");
    lock(root);
    let lock_before = std::fs::read(root.join("capabilities.lock")).expect("lock");
    let path = root.to_str().expect("utf-8");
    let plan = json!([
        {"op": "answers", "with": ["yes-always", "yes-always"]},
        {"op": "call_tool", "name": "Skill", "arguments": {"skill": "deploy"}},
        {"op": "call_tool", "name": "Skill", "arguments": {"skill": "deploy"}},
        {"op": "questions"},
    ]);
    let a = sdk_stdio(&plan, &[path, "--trust"]);
    assert_eq!(a[1]["ok"]["isError"], false, "{}", a[1]);
    assert_eq!(a[2]["ok"]["isError"], false, "{}", a[2]);
    assert_eq!(asked(&a[3]).len(), 2, "asked in the first call only: {}", a[3]);
    assert_eq!(
        std::fs::read_to_string(&local).expect("saved"),
        "{\n  \"env\": {\n    \"KEEP\": \"1\"\n  },\n  \"permissions\": {\n    \"deny\": [\n      \"Bash(rm *)\"\n    ],\n    \"allow\": [\n      \"Skill(deploy)\",\n      \"Bash(./count.sh)\"\n    ]\n  }\n}\n"
    );
    assert_eq!(std::fs::read(root.join("capabilities.lock")).expect("lock"), lock_before, "the lock is not touched");
    let leftovers: Vec<_> = std::fs::read_dir(root.join(".claude"))
        .expect("list")
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with(".settings"))
        .collect();
    assert!(leftovers.is_empty(), "no temporary file is left: {leftovers:?}");
    // A second run of the same lock: no question.
    let again = json!([
        {"op": "answers", "with": []},
        {"op": "call_tool", "name": "Skill", "arguments": {"skill": "deploy"}},
        {"op": "questions"},
    ]);
    let b = sdk_stdio(&again, &[path, "--trust"]);
    assert_eq!(b[1]["ok"]["isError"], false, "{}", b[1]);
    assert_eq!(asked(&b[2]).len(), 0, "{}", b[2]);
    assert_eq!(runs(root), 3);
    // Untrusted, the local settings' allow rules do not hold, and "always" is not offered.
    let c = sdk_stdio(&again, &[path]);
    assert!(text_of(&c[1]).starts_with(REJECTED), "asked, and dismissed: {}", c[1]);
    let questions = asked(&c[2]);
    assert_eq!(questions.len(), 1, "{}", c[2]);
    assert_eq!(questions[0].1, ["Yes", "Allow for this session", "No"]);
}

/// A yes allows the one command asked about and nothing else. A `!` command holding a `*` has
/// no allow rule that names only it (in a rule, `*` is a wildcard): `Bash(tar -czf b.tgz src/*)`
/// also allows `tar … --checkpoint-action=exec=…`, which runs a program. Claude Code offers no
/// "don't ask again" for such a command; capc asks no question it cannot answer with a rule
/// naming just that command, so neither a Yes (which held for the command the same prompt runs
/// next) nor "always" (which saved the wildcard rule) lets the second one run.
pub(super) fn a_yes_allows_only_that_command() {
    let dir = asking_project(None);
    let root = dir.path();
    std::fs::create_dir_all(root.join("src")).expect("mkdir");
    std::fs::write(root.join("src/a.txt"), "a\n").expect("write");
    std::fs::write(
        root.join(".claude/commands/pack.md"),
        "Packed: !`tar -czf backup.tgz src/*`\nThen: !`tar -czf backup.tgz src/ --checkpoint=1 --checkpoint-action=exec=./count.sh`\n",
    )
    .expect("write");
    lock(root);
    for answer in ["yes", "yes-session", "yes-always"] {
        let plan = json!([
            {"op": "answers", "with": [answer, answer, answer]},
            {"op": "get_prompt", "name": "pack", "arguments": {}},
            {"op": "get_prompt", "name": "pack", "arguments": {}},
            {"op": "questions"},
        ]);
        let a = sdk_stdio(&plan, &[root.to_str().expect("utf-8"), "--trust"]);
        for refused in &a[1..3] {
            let message = refused["error"]["message"].as_str().unwrap_or_default();
            assert!(message.starts_with("Shell command permission check failed"), "{answer}: {refused}");
        }
        for (message, _) in asked(&a[3]) {
            assert!(!message.contains('*'), "{answer}: no question about a command with a wildcard: {message}");
        }
        assert_eq!(runs(root), 0, "{answer}: the checkpoint action ran");
        let saved = std::fs::read_to_string(root.join(".claude/settings.local.json")).unwrap_or_default();
        assert!(!saved.contains('*'), "{answer}: a wildcard rule was saved: {saved}");
    }
}

/// No, decline and cancel all refuse, as Claude Code's No does: the model is told, and the
/// command does not run; a prompt whose `!` command is refused is not sent.
pub(super) fn no_decline_and_cancel_run_nothing() {
    // The skill is allowed; only its command asks. Served without a lock.
    let dir = asking_project(Some(json!({"permissions": {"allow": ["Skill(deploy)"]}})));
    let root = dir.path();
    let plan = json!([
        {"op": "answers", "with": ["no", "decline", "cancel", "no"]},
        {"op": "call_tool", "name": "Skill", "arguments": {"skill": "deploy"}},
        {"op": "call_tool", "name": "Skill", "arguments": {"skill": "deploy"}},
        {"op": "call_tool", "name": "Skill", "arguments": {"skill": "deploy"}},
        {"op": "get_prompt", "name": "stamp", "arguments": {}},
        {"op": "questions"},
    ]);
    let a = sdk_stdio(&plan, &[root.to_str().expect("utf-8"), "--trust"]);
    for answer in &a[1..4] {
        assert_eq!(answer["ok"]["isError"], true, "{answer}");
        assert!(text_of(answer).starts_with(REJECTED), "{answer}");
    }
    let refused = a[4]["error"]["message"].as_str().unwrap_or_default();
    assert!(refused.starts_with("Shell command permission check failed for pattern"), "{}", a[4]);
    assert_eq!(asked(&a[5]).len(), 4, "{}", a[5]);
    assert_eq!(runs(root), 0, "nothing ran");
    assert!(!root.join(".claude/settings.local.json").exists());
    assert!(!root.join("capabilities.lock").exists(), "no lock is written");
}

/// A client without the elicitation capability gets the headless refusal, which names the
/// rule to add; nothing runs.
pub(super) fn without_elicitation_refuses() {
    let dir = asking_project(None);
    let root = dir.path();
    lock(root);
    let plan = json!([
        {"op": "call_tool", "name": "Skill", "arguments": {"skill": "deploy"}},
        {"op": "get_prompt", "name": "stamp", "arguments": {}},
    ]);
    let a = sdk_stdio(&plan, &[root.to_str().expect("utf-8"), "--trust"]);
    assert_eq!(a[0]["ok"]["isError"], true, "{}", a[0]);
    assert_eq!(
        text_of(&a[0]),
        "Claude requested permissions to use Skill(deploy), but you haven't granted it yet (Execute skill: deploy). \
         To allow it, add `Skill(deploy)` to permissions.allow in .claude/settings.local.json."
    );
    assert_eq!(a[0]["ok"]["structuredContent"]["permission"]["behavior"], "ask", "{}", a[0]);
    let refused = a[1]["error"]["message"].as_str().unwrap_or_default();
    assert!(refused.starts_with("Shell command permission check failed for pattern \"!`./count.sh`\""), "{}", a[1]);
    assert_eq!(runs(root), 0);
}

/// `--connect`: a call no rule allows is asked about ("Tool use", the server and tool as Claude
/// Code names them), and made on a yes.
pub(super) fn asks_before_a_gateway_call() {
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path();
    let mcp = json!({"mcpServers": {"everything": {"command": "node", "args": [everything(), "stdio"]}}});
    std::fs::write(root.join(".mcp.json"), mcp.to_string()).expect("write");
    lock(root);
    let plan = json!([
        {"op": "until_tools", "present": ["mcp__everything__echo"], "timeout_ms": 20000},
        {"op": "answers", "with": ["yes"]},
        {"op": "call_tool", "name": "mcp__everything__echo", "arguments": {"message": "asked first"}},
        {"op": "call_tool", "name": "mcp__everything__echo", "arguments": {"message": "again"}},
        {"op": "questions"},
    ]);
    let a = sdk_stdio(&plan, &[root.to_str().expect("utf-8"), "--connect", "--trust"]);
    assert_eq!(a[0]["ok"]["matched"], true, "{}", a[0]);
    assert_eq!(text_of(&a[2]), "Echo: asked first", "{}", a[2]);
    assert_eq!(a[2]["ok"]["structuredContent"]["permission"]["behavior"], "allow", "{}", a[2]);
    assert!(text_of(&a[3]).starts_with(REJECTED), "once was for one call; dismissed: {}", a[3]);
    let questions = asked(&a[4]);
    assert_eq!(questions.len(), 2, "{}", a[4]);
    assert_eq!(questions[0].0, "Tool use\neverything - echo (MCP)\nDo you want to proceed?");
    assert_eq!(
        questions[0].1[2],
        format!("Yes, and don't ask again for everything - echo (MCP) commands in {}", root.display())
    );
}

/// The records of `tests/oracle/serve-ask.py`: Claude Code as the client declares form
/// elicitation, answers capc's question with `cancel` in a headless run (so the command is
/// refused) and with what its `Elicitation` hook says otherwise (`yes-always`: the rule saved,
/// the command run, its output in the request Claude Code sent); and today's `capc serve` still
/// asks the recorded question.
pub(super) fn claude_code_answers_as_recorded() {
    let records = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle/serve-ask");
    let read = |name: &str| -> Value {
        let path = records.join(name);
        serde_json::from_str(&std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
            .expect("JSON")
    };
    let (headless, hook) = (read("headless.json"), read("hook.json"));
    for record in [&headless, &hook] {
        assert!(record["capabilities"]["elicitation"]["form"].is_object(), "{}", record["capabilities"]);
        assert_eq!(record["question"], headless["question"], "the same question both times");
    }
    assert_eq!(headless["answer"], json!({"action": "cancel"}));
    let refused = headless["prompts_get"]["message"].as_str().unwrap_or_default();
    assert!(refused.starts_with("Shell command permission check failed for pattern \"!`./count.sh`\""), "{refused}");
    assert_eq!(headless["settings_local"], Value::Null);
    assert_eq!(hook["answer"], json!({"action": "accept", "content": {"answer": "yes-always"}}));
    let texts = hook["claude"]["texts"].as_array().expect("texts");
    assert_eq!(texts.last(), Some(&json!("Stamped: counted\n")), "the command ran: {texts:?}");
    assert_eq!(
        hook["settings_local"],
        "{\n  \"permissions\": {\n    \"allow\": [\n      \"Bash(./count.sh)\"\n    ]\n  }\n}\n"
    );
    // Today's capc asks what Claude Code was asked.
    let dir = tempfile::tempdir().expect("tempdir");
    let root = dir.path().join("tree");
    copy(&records.join("tree"), &root);
    let plan = json!([
        {"op": "answers", "with": ["cancel"]},
        {"op": "get_prompt", "name": "stamp", "arguments": {}},
        {"op": "questions"},
    ]);
    let a = sdk_stdio(&plan, &[root.to_str().expect("utf-8"), "--trust"]);
    let now = a[2]["ok"][0].to_string().replace(&root.display().to_string(), "<TREE>");
    let now: Value = serde_json::from_str(&now).expect("JSON");
    assert_eq!(now["message"], headless["question"]["message"]);
    assert_eq!(now["requestedSchema"], headless["question"]["requestedSchema"]);
}

/// Over Streamable HTTP the question goes to the client of the request that raised it, and
/// its answer holds for that client's later calls ("Allow for this session").
pub(super) fn asks_over_http() {
    let dir = asking_project(None);
    let root = dir.path();
    let (_server, url) = serve_http(root, &["--trust"], &[]);
    let plan = json!([
        {"op": "answers", "with": ["yes-session", "yes"]},
        {"op": "call_tool", "name": "Skill", "arguments": {"skill": "deploy"}},
        {"op": "call_tool", "name": "Skill", "arguments": {"skill": "deploy"}},
        {"op": "questions"},
    ]);
    let a = sdk_http(&plan, &url, None);
    assert_eq!(a[1]["ok"]["isError"], false, "{}", a[1]);
    assert!(text_of(&a[1]).starts_with("Launching skill: deploy"), "{}", a[1]);
    assert_eq!(a[2]["ok"]["isError"], true, "the command's yes was for one call; dismissed now: {}", a[2]);
    let questions = asked(&a[3]);
    assert_eq!(questions.len(), 3, "the skill and its command, then the command again: {}", a[3]);
    assert!(questions[2].0.starts_with("Bash command\n./count.sh"), "{}", questions[2].0);
    assert_eq!(runs(root), 1);
}
