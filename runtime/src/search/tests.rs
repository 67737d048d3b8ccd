//! Tests of tool search: `select:`, the keyword scores and ranks, deferral and the no-match text.

use super::keywords::{parse_tool_name, score_tool, split_terms, word_match, ParsedName};
use super::*;

fn builtin(name: &'static str, description: &'static str, deferred: bool) -> SearchTool<'static> {
    SearchTool { name, description, search_hint: None, is_mcp: false, deferred }
}

fn mcp(name: &'static str, description: &'static str, search_hint: Option<&'static str>) -> SearchTool<'static> {
    SearchTool { name, description, search_hint, is_mcp: true, deferred: true }
}

/// Pool order: built-ins by `localeCompare`, then MCP tools by `localeCompare`.
fn pool() -> Vec<SearchTool<'static>> {
    vec![
        builtin("Bash", "Executes a given bash command in a persistent shell session.", false),
        builtin("ListMcpResourcesTool", "Lists available resources from configured MCP servers.", true),
        builtin("NotebookEdit", "Replaces the contents of a specific cell in a Jupyter notebook.", false),
        builtin("Read", "Reads a file from the local filesystem.", false),
        builtin(
            "ReadMcpResourceTool",
            "Reads a specific resource from an MCP server, identified by server name and resource URI.",
            true,
        ),
        builtin("WebFetch", "Fetches content from a specified URL and processes it using an AI model.", false),
        mcp(
            "mcp__github__create_issue",
            "Create a new issue in a GitHub repository.",
            Some("open a bug report ticket"),
        ),
        mcp(
            "mcp__github__list_pull_requests",
            "List pull requests in a GitHub repository, with filters for state and branch.",
            None,
        ),
        mcp(
            "mcp__linear__create_issue",
            "Create an issue in Linear for the current team.",
            Some("track work in a linear project"),
        ),
        mcp(
            "mcp__slack__post_message",
            "Post a message to a Slack channel.",
            Some("send chat notification to channel"),
        ),
    ]
}

fn search(query: &str) -> Vec<String> {
    tool_search(query, DEFAULT_MAX_RESULTS, &pool(), &[]).matches
}

fn search_max(query: &str, max: usize) -> Vec<String> {
    tool_search(query, max, &pool(), &[]).matches
}

/// The full ranking with scores, before `max_results` (the keyword stage only).
fn scores(query: &str) -> Vec<(String, u32)> {
    let tools = pool();
    let deferred: Vec<&SearchTool<'_>> = tools.iter().filter(|t| t.deferred).collect();
    ranked(&query.trim().to_lowercase(), &deferred).into_iter().map(|(n, s)| (n.to_owned(), s)).collect()
}

fn owned(names: &[&str]) -> Vec<String> {
    names.iter().map(|n| (*n).to_owned()).collect()
}

fn pairs(expected: &[(&str, u32)]) -> Vec<(String, u32)> {
    expected.iter().map(|(n, s)| ((*n).to_owned(), *s)).collect()
}

// ---- isDeferredTool ----

#[test]
fn is_deferred_follows_the_order_of_the_checks() {
    // alwaysLoad wins over everything, MCP included.
    assert!(!is_deferred(true, true, "mcp__github__create_issue", true));
    assert!(!is_deferred(true, false, "WebFetch", true));
    // MCP tools are deferred whatever shouldDefer says.
    assert!(is_deferred(false, true, "mcp__github__create_issue", false));
    // MCP is checked before the ToolSearch name.
    assert!(is_deferred(false, true, "ToolSearch", false));
    // ToolSearch itself is never deferred.
    assert!(!is_deferred(false, false, "ToolSearch", true));
    // Otherwise: shouldDefer.
    assert!(is_deferred(false, false, "WebFetch", true));
    assert!(!is_deferred(false, false, "Bash", false));
    // The fork-subagent and KAIROS cases are not modelled: Agent and Brief follow shouldDefer.
    assert!(is_deferred(false, false, "Agent", true));
    assert!(!is_deferred(false, false, "Brief", false));
}

// ---- parseToolName ----

#[test]
fn parse_tool_name_splits_mcp_names_on_underscores() {
    let parsed = parse_tool_name("mcp__github__list_pull_requests");
    assert_eq!(parsed.parts, owned(&["github", "list", "pull", "requests"]));
    assert_eq!(parsed.full, "github list pull requests");
    assert!(parsed.is_mcp);

    let parsed = parse_tool_name("mcp__My_Server__Do__It_");
    assert_eq!(parsed.parts, owned(&["my", "server", "do", "it"]));
    assert_eq!(parsed.full, "my server do it ");
}

#[test]
fn parse_tool_name_splits_camel_case_and_underscores_for_other_tools() {
    let parsed = parse_tool_name("NotebookEdit");
    assert_eq!(parsed.parts, owned(&["notebook", "edit"]));
    assert_eq!(parsed.full, "notebook edit");
    assert!(!parsed.is_mcp);
    assert_eq!(parse_tool_name("ListMcpResourcesTool").parts, owned(&["list", "mcp", "resources", "tool"]));
    assert_eq!(parse_tool_name("WebFetch").parts, owned(&["web", "fetch"]));
    // Only lower-then-upper splits: an acronym stays whole.
    assert_eq!(parse_tool_name("MCPTool").parts, owned(&["mcptool"]));
    assert_eq!(parse_tool_name("snake_caseName").parts, owned(&["snake", "case", "name"]));
    // The prefix is case-sensitive, like `startsWith('mcp__')`.
    let parsed = parse_tool_name("MCP__x__y");
    assert!(!parsed.is_mcp);
    assert_eq!(parsed.parts, owned(&["mcp", "x", "y"]));
}

// ---- word boundaries (JavaScript `\b`) ----

#[test]
fn word_match_uses_javascript_word_boundaries() {
    assert!(word_match("create a new issue in a github repository.", "issue"));
    assert!(word_match("github repository.", "repository"));
    assert!(word_match("x", "x"));
    assert!(!word_match("", "x"));
    // Inside a longer word: no.
    assert!(!word_match("list pull requests", "request"));
    assert!(!word_match("reissue", "issue"));
    // `_` is a word character.
    assert!(!word_match("snake_case", "snake"));
    // Non-ASCII letters are non-word characters, as in JavaScript without the `u` flag.
    assert!(word_match("café", "caf"));
    assert!(word_match("日本語issue", "issue"));
    // A term that starts or ends with a non-word character needs a word character on the far side.
    assert!(!word_match("run with -v now", "-v"));
    assert!(word_match("foo-v", "-v"));
    assert!(!word_match("written in c++ code", "c++"));
    assert!(word_match("c++x", "c++"));
    // Regex metacharacters are literal.
    assert!(word_match("a.b", "a.b"));
    assert!(!word_match("axb", "a.b"));
    // Overlapping occurrences are all tried.
    assert!(word_match("x-a-a-", "-a-a"));
}

// ---- scoring rules, one by one ----

#[test]
fn exact_part_scores_12_for_mcp_and_10_for_others_plus_2_for_the_description() {
    // `issue` is a part of both create_issue tools and a word of both descriptions: 12 + 2; the tie keeps pool
    // order (github before linear).
    assert_eq!(scores("issue"), pairs(&[("mcp__github__create_issue", 14), ("mcp__linear__create_issue", 14)]));
    assert_eq!(scores("pull"), pairs(&[("mcp__github__list_pull_requests", 14)]));
    // `resource`: an exact part of ReadMcpResourceTool (10) plus its description (2); only a substring of
    // ListMcpResourcesTool's `resources` (5), whose description says `resources` (no word match). Sorted by score,
    // against pool order.
    assert_eq!(scores("resource"), pairs(&[("ReadMcpResourceTool", 12), ("ListMcpResourcesTool", 5)]));
    // `mcp` is a part of both built-ins and a word of both descriptions; MCP tool names lose their prefix.
    assert_eq!(scores("mcp"), pairs(&[("ListMcpResourcesTool", 12), ("ReadMcpResourceTool", 12)]));
    // MCP weights beat pool order: 12 + 2 for the MCP tool against 10 (`lists` is not the word `list`).
    assert_eq!(scores("list"), pairs(&[("mcp__github__list_pull_requests", 14), ("ListMcpResourcesTool", 10)]));
}

#[test]
fn substring_of_a_part_scores_6_for_mcp_and_5_for_others() {
    assert_eq!(scores("lis"), pairs(&[("mcp__github__list_pull_requests", 6), ("ListMcpResourcesTool", 5)]));
    // `request` is inside `requests` (6) but not a word of `pull requests,` (no +2).
    assert_eq!(scores("request"), pairs(&[("mcp__github__list_pull_requests", 6)]));
    // Not the other way round: `resources` is not inside `resource`.
    assert_eq!(scores("resources"), pairs(&[("ListMcpResourcesTool", 12)]));
}

#[test]
fn search_hint_words_score_4_and_description_words_score_2() {
    assert_eq!(scores("ticket"), pairs(&[("mcp__github__create_issue", 4)]));
    assert_eq!(scores("project"), pairs(&[("mcp__linear__create_issue", 4)]));
    assert_eq!(scores("reads"), pairs(&[("ReadMcpResourceTool", 2)]));
    assert_eq!(scores("server"), pairs(&[("ReadMcpResourceTool", 2)]));
    // Both: `channel` is in the slack hint (4) and description (2).
    assert_eq!(scores("channel"), pairs(&[("mcp__slack__post_message", 6)]));
}

#[test]
fn scores_add_up_over_the_terms() {
    // github: create 14 + issue 14 + ticket (hint) 4; linear: create 14 + issue 14.
    assert_eq!(
        scores("create issue ticket"),
        pairs(&[("mcp__github__create_issue", 32), ("mcp__linear__create_issue", 28)])
    );
    // slack: channel 4 + 2, message 12 + 2, slack 12 + 2.
    assert_eq!(scores("channel message slack"), pairs(&[("mcp__slack__post_message", 34)]));
    // A repeated term scores twice.
    assert_eq!(scores("ticket ticket"), pairs(&[("mcp__github__create_issue", 8)]));
    // Whitespace of any kind separates terms; the query is lowercased.
    assert_eq!(search("  ISSUE\tTicket \n"), owned(&["mcp__github__create_issue", "mcp__linear__create_issue"]));
}

#[test]
fn full_name_scores_3_only_while_the_running_score_is_0() {
    // A hand-made name where `full` holds text no part does, to exercise the rule itself.
    let parsed = ParsedName { parts: owned(&["x"]), full: "x yz".to_owned(), is_mcp: true };
    assert_eq!(score_tool(&parsed, "", None, &["yz"]), 3);
    // An earlier term that scored nothing leaves the running score at 0: still +3.
    assert_eq!(score_tool(&parsed, "", None, &["nothing", "yz"]), 3);
    // An earlier term that scored blocks it: the check is on the running total, not on this term.
    assert_eq!(score_tool(&parsed, "", None, &["x", "yz"]), 12);
    assert_eq!(score_tool(&parsed, "", Some("hint"), &["hint", "yz"]), 4);
    assert_eq!(score_tool(&parsed, "", None, &["yz", "yz"]), 3);
    // ...but a later term still scores its own hint and description matches.
    assert_eq!(score_tool(&parsed, "about yz", Some("yz"), &["yz"]), 3 + 4 + 2);
}

#[test]
fn full_name_never_adds_anything_for_real_names() {
    // Every space-free piece of `full` lies inside a part, so the substring rule always scores first.
    for tool in pool() {
        let parsed = parse_tool_name(tool.name);
        for word in parsed.full.split(' ') {
            let chars: Vec<(usize, char)> = word.char_indices().collect();
            for (i, _) in &chars {
                for end in chars.iter().map(|(j, _)| *j).filter(|j| j > i).chain([word.len()]) {
                    let piece = &word[*i..end];
                    assert!(parsed.parts.iter().any(|p| p.contains(piece)), "{piece} of {}", tool.name);
                }
            }
        }
    }
}

#[test]
fn only_deferred_tools_are_scored() {
    // Bash's description says `command`, WebFetch's name has `fetch`, but neither is deferred.
    assert_eq!(search("command"), Vec::<String>::new());
    assert_eq!(search("fetch"), Vec::<String>::new());
    assert_eq!(search("notebook"), Vec::<String>::new());
}

#[test]
fn max_results_cuts_the_ranking() {
    assert_eq!(search_max("issue", 1), owned(&["mcp__github__create_issue"]));
    assert_eq!(search_max("issue", 0), Vec::<String>::new());
    assert_eq!(
        search_max("issue github", 5),
        owned(&["mcp__github__create_issue", "mcp__github__list_pull_requests", "mcp__linear__create_issue"])
    );
}

#[test]
fn ranking_mixes_rules() {
    // github create_issue: issue 14 + github 14 = 28; list_pull_requests: github 14; linear: issue 14 (pool order
    // after list_pull_requests).
    assert_eq!(
        scores("issue github"),
        pairs(&[
            ("mcp__github__create_issue", 28),
            ("mcp__github__list_pull_requests", 14),
            ("mcp__linear__create_issue", 14),
        ])
    );
}

// ---- required terms ----

#[test]
fn required_terms_filter_then_score_first() {
    // Without `+`: linear 18 + 14 = 32 (linear: part 12, hint 4, description 2); github 0 + 14.
    assert_eq!(scores("linear issue"), pairs(&[("mcp__linear__create_issue", 32), ("mcp__github__create_issue", 14)]));
    // With `+linear`: only tools that mention `linear` stay.
    assert_eq!(scores("+linear issue"), pairs(&[("mcp__linear__create_issue", 32)]));
    assert_eq!(scores("issue +linear"), pairs(&[("mcp__linear__create_issue", 32)]));
}

#[test]
fn a_required_term_may_match_a_part_substring_the_description_or_the_hint() {
    // Description only: both github tools say `repository`; 2 each, pool order.
    assert_eq!(
        scores("+repository"),
        pairs(&[("mcp__github__create_issue", 2), ("mcp__github__list_pull_requests", 2)])
    );
    // A substring of a part.
    assert_eq!(scores("+req"), pairs(&[("mcp__github__list_pull_requests", 6)]));
    // The hint only.
    assert_eq!(scores("+ticket issue"), pairs(&[("mcp__github__create_issue", 18)]));
    // Nobody mentions it: nothing, even though `issue` alone would match.
    assert_eq!(scores("+jira issue"), Vec::<(String, u32)>::new());
    // All required terms must hold.
    assert_eq!(scores("+github +create"), pairs(&[("mcp__github__create_issue", 28)]));
}

#[test]
fn a_lone_plus_is_an_optional_term() {
    assert_eq!(split_terms("+ issue"), (Vec::<&str>::new(), vec!["+", "issue"]));
    assert_eq!(split_terms("a +b c +d"), (vec!["b", "d"], vec!["b", "d", "a", "c"]));
    assert_eq!(split_terms("++x"), (vec!["+x"], vec!["+x"]));
    assert_eq!(search("+"), Vec::<String>::new());
}

// ---- exact name and MCP prefix ----

#[test]
fn an_exact_name_wins_case_insensitively_even_for_loaded_tools() {
    assert_eq!(search("MCP__SLACK__POST_MESSAGE"), owned(&["mcp__slack__post_message"]));
    // A loaded (not deferred) tool is found through all tools.
    assert_eq!(search("  webfetch "), owned(&["WebFetch"]));
    // `read` names Read exactly, so ReadMcpResourceTool is not searched for.
    assert_eq!(search("read"), owned(&["Read"]));
    // Regardless of max_results.
    assert_eq!(search_max("bash", 0), owned(&["Bash"]));
}

#[test]
fn an_exact_name_looks_in_deferred_tools_first() {
    let tools = [builtin("Alpha", "", false), builtin("ALPHA", "", true)];
    assert_eq!(tool_search("alpha", 5, &tools, &[]).matches, owned(&["ALPHA"]));
    let tools = [builtin("Alpha", "", false), builtin("ALPHA", "", false)];
    assert_eq!(tool_search("alpha", 5, &tools, &[]).matches, owned(&["Alpha"]));
}

#[test]
fn an_mcp_prefix_lists_deferred_tools_in_pool_order() {
    assert_eq!(search("mcp__github"), owned(&["mcp__github__create_issue", "mcp__github__list_pull_requests"]));
    assert_eq!(search("MCP__GitHub__"), owned(&["mcp__github__create_issue", "mcp__github__list_pull_requests"]));
    assert_eq!(search_max("mcp__github", 1), owned(&["mcp__github__create_issue"]));
    assert_eq!(search("mcp__s"), owned(&["mcp__slack__post_message"]));
    // Longer than `mcp__` only: `mcp__` alone is a plain term, which matches nothing here.
    assert_eq!(search("mcp__"), Vec::<String>::new());
    // No tool has the prefix: keyword search of the same text, which finds nothing.
    assert_eq!(search("mcp__jira"), Vec::<String>::new());
}

#[test]
fn an_mcp_prefix_skips_loaded_mcp_tools() {
    let mut tools = pool();
    for tool in &mut tools {
        if tool.name == "mcp__github__create_issue" {
            tool.deferred = false; // alwaysLoad
        }
    }
    assert_eq!(tool_search("mcp__github", 5, &tools, &[]).matches, owned(&["mcp__github__list_pull_requests"]));
    // And keyword search skips it too, but the exact name still finds it.
    assert_eq!(tool_search("ticket", 5, &tools, &[]).matches, Vec::<String>::new());
    assert_eq!(tool_search("mcp__github__create_issue", 5, &tools, &[]).matches, owned(&["mcp__github__create_issue"]));
}

#[test]
fn an_mcp_prefix_cut_to_nothing_falls_through_to_keywords() {
    assert_eq!(search_max("mcp__github", 0), Vec::<String>::new());
}

// ---- select: ----

#[test]
fn select_returns_the_named_tools_in_order() {
    assert_eq!(
        search("select:mcp__slack__post_message,mcp__github__create_issue"),
        owned(&["mcp__slack__post_message", "mcp__github__create_issue"])
    );
    // The prefix is case-insensitive; names are trimmed; max_results does not apply.
    assert_eq!(
        search_max("SeLeCt: mcp__linear__create_issue , ReadMcpResourceTool", 1),
        owned(&["mcp__linear__create_issue", "ReadMcpResourceTool"])
    );
}

#[test]
fn select_drops_duplicates_and_returns_loaded_tools_too() {
    assert_eq!(
        search("select:Read,mcp__slack__post_message, Read ,mcp__slack__post_message,,"),
        owned(&["Read", "mcp__slack__post_message"])
    );
}

#[test]
fn select_returns_what_it_found() {
    let pending = owned(&["jira"]);
    let result = tool_search("select:mcp__github__create_issue,mcp__jira__create_issue", 5, &pool(), &pending);
    assert_eq!(result.matches, owned(&["mcp__github__create_issue"]));
    assert_eq!(result.pending_mcp_servers, Vec::<String>::new());
    assert_eq!(result.text, "Found 1 tool: mcp__github__create_issue");
}

#[test]
fn select_of_nothing_known_carries_the_pending_servers() {
    let pending = owned(&["jira"]);
    let result = tool_search("select:mcp__jira__create_issue", 5, &pool(), &pending);
    assert_eq!(result.matches, Vec::<String>::new());
    assert_eq!(result.pending_mcp_servers, pending);
    assert!(result.text.starts_with(NO_MATCH_TEXT));
    assert!(result.text.contains("jira"));
}

#[test]
fn select_names_are_case_sensitive() {
    assert_eq!(search("select:read"), Vec::<String>::new());
    assert_eq!(search("select:READ,Read"), owned(&["Read"]));
}

#[test]
fn what_is_not_a_select_query() {
    assert_eq!(select_list("select:a"), Some("a"));
    assert_eq!(select_list("SELECT:a, b"), Some("a, b"));
    assert_eq!(select_list("select: "), Some(" "));
    assert_eq!(select_list("select:"), None);
    assert_eq!(select_list(" select:a"), None);
    assert_eq!(select_list("select:a\nb"), None);
    assert_eq!(select_list("select:a\u{2028}"), None);
    assert_eq!(select_list("selec"), None);
    assert_eq!(select_list("sélect:a"), None);
    // Not select: so a keyword search, which finds nothing.
    assert_eq!(search("select:Read\nBash"), Vec::<String>::new());
    assert_eq!(search("select:"), Vec::<String>::new());
    // Only separators: a select query that finds nothing.
    assert_eq!(search("select:, ,"), Vec::<String>::new());
}

// ---- results and text ----

#[test]
fn an_empty_query_matches_nothing() {
    let result = tool_search("", 5, &pool(), &[]);
    assert_eq!(result, SearchResult { matches: vec![], pending_mcp_servers: vec![], text: NO_MATCH_TEXT.to_owned() });
    assert_eq!(search("   \t "), Vec::<String>::new());
}

#[test]
fn pending_servers_are_reported_only_when_nothing_matched() {
    let pending = owned(&["jira", "notion"]);
    let result = tool_search("spreadsheet", 5, &pool(), &pending);
    assert_eq!(result.matches, Vec::<String>::new());
    assert_eq!(result.pending_mcp_servers, pending);
    assert_eq!(
        result.text,
        "No matching deferred tools found. Some MCP servers are still connecting (jira, notion); their tools are \
         not searchable yet, so try searching again shortly."
    );

    let result = tool_search("issue", 5, &pool(), &pending);
    assert_eq!(
        result,
        SearchResult {
            matches: owned(&["mcp__github__create_issue", "mcp__linear__create_issue"]),
            pending_mcp_servers: vec![],
            text: "Found 2 tools: mcp__github__create_issue, mcp__linear__create_issue".to_owned(),
        }
    );
}

#[test]
fn an_empty_pool_matches_nothing() {
    assert_eq!(tool_search("issue", 5, &[], &[]).matches, Vec::<String>::new());
    assert_eq!(tool_search("select:Read", 5, &[], &[]).matches, Vec::<String>::new());
    assert_eq!(tool_search("mcp__x", 5, &[], &[]).matches, Vec::<String>::new());
}

// ---- Unicode and odd input ----

#[test]
fn unicode_names_and_descriptions() {
    let tools = [
        mcp("mcp__café__créer_ticket", "Crée un ticket dans le café.", Some("übersicht der aufgaben")),
        mcp("mcp__日本__検索", "日本語で検索します", None),
    ];
    // Lowercased with full Unicode rules.
    assert_eq!(tool_search("CRÉER", 5, &tools, &[]).matches, owned(&["mcp__café__créer_ticket"]));
    assert_eq!(tool_search("AUFGABEN", 5, &tools, &[]).matches, owned(&["mcp__café__créer_ticket"]));
    // `ü` is not a word character, so `\bübersicht\b` finds no boundary before it: no match, as in Claude Code.
    assert_eq!(tool_search("ÜBERSICHT", 5, &tools, &[]).matches, Vec::<String>::new());
    // `caf` is a substring of the part `café` (6) and, since `é` is not a word character, a word of the
    // description (2).
    let deferred: Vec<&SearchTool<'_>> = tools.iter().collect();
    assert_eq!(ranked("caf", &deferred), vec![("mcp__café__créer_ticket", 8)]);
    assert_eq!(ranked("検索", &deferred), vec![("mcp__日本__検索", 12)]);
    assert_eq!(tool_search("mcp__日", 5, &tools, &[]).matches, owned(&["mcp__日本__検索"]));
    assert_eq!(tool_search("select:mcp__日本__検索", 5, &tools, &[]).matches, owned(&["mcp__日本__検索"]));
}

#[test]
fn odd_queries_never_panic() {
    let tools = pool();
    let queries = [
        "",
        " ",
        "+",
        "++",
        "+ +",
        "mcp_",
        "mcp__",
        "mcp__é",
        "MCP__İ",
        "select",
        "select:",
        "select:é",
        "SELECT:,é,,😀",
        "sélect:x",
        "s\u{0301}elect:x",
        "😀",
        "+😀 issue",
        "İssue",
        "ǅ",
        "\u{0301}",
        "\u{2028}issue\u{2029}",
        "\0",
        "(.*)",
        "\\b",
        "[a-z]+",
        "a\u{00A0}b",
        "ﬀ ß ΣΑΣ",
    ];
    for query in queries {
        for max in [0, 1, 5, usize::MAX] {
            let result = tool_search(query, max, &tools, &owned(&["slow"]));
            assert_eq!(result.matches.is_empty(), result.text.starts_with(NO_MATCH_TEXT), "{query:?}");
            assert!(result.matches.is_empty() || result.pending_mcp_servers.is_empty(), "{query:?}");
        }
    }
    let long = "issue ".repeat(10_000);
    assert_eq!(
        tool_search(&long, 5, &tools, &[]).matches,
        owned(&["mcp__github__create_issue", "mcp__linear__create_issue"])
    );
}
