//! A server's tools, prompts and resources listed into one [`Update`], and the
//! `subscriptions/listen` stream that tells a 2026-07-28 session's changes.

use super::client::{seconds, Connection, Kind, ALL};
use crate::mcp::{ToolSpec, Update};
use rmcp::model::{ServerNotification, SubscriptionFilter};
use rmcp::RoleClient;
use std::time::Duration;

/// What a listing found: one update (the lists that could be read) and what went wrong.
pub(super) struct Listing {
    pub(super) update: Update,
    pub(super) problems: Vec<String>,
}

/// Lists the given kinds concurrently into one update. A server without a capability answers
/// "method not found": that list is empty. Another error leaves that list out (`None`: a
/// refresh keeps the previous one) and is named in `problems`.
pub(super) async fn list(
    server: &str,
    peer: &rmcp::Peer<RoleClient>,
    kinds: &[Kind],
    timeout: Duration,
) -> Result<Listing, String> {
    fn read<T>(
        kind: &str,
        result: Option<Result<Vec<T>, rmcp::ServiceError>>,
        problems: &mut Vec<String>,
    ) -> Option<Vec<T>> {
        match result? {
            Ok(list) => Some(list),
            Err(rmcp::ServiceError::McpError(e)) if e.code == rmcp::model::ErrorCode::METHOD_NOT_FOUND => {
                Some(Vec::new())
            }
            Err(e) => {
                problems.push(format!("{kind}/list failed: {e}"));
                None
            }
        }
    }
    let want = |k: Kind| kinds.contains(&k);
    let listing = async {
        let tools = async {
            if want(Kind::Tools) {
                Some(peer.list_all_tools().await)
            } else {
                None
            }
        };
        let prompts = async {
            if want(Kind::Prompts) {
                Some(peer.list_all_prompts().await)
            } else {
                None
            }
        };
        let resources = async {
            if want(Kind::Resources) {
                Some(peer.list_all_resources().await)
            } else {
                None
            }
        };
        tokio::join!(tools, prompts, resources)
    };
    let (tools, prompts, resources) =
        tokio::time::timeout(timeout, listing).await.map_err(|_| format!("listing took over {}", seconds(timeout)))?;
    let mut problems = Vec::new();
    let mut update = Update { server: server.to_string(), ..Update::default() };
    update.tools = read("tools", tools, &mut problems).map(|tools| {
        tools
            .into_iter()
            .map(|t| {
                let meta = t.meta.as_ref();
                let hint =
                    meta.and_then(|m| m.get("anthropic/searchHint")).and_then(|v| v.as_str()).map(str::to_string);
                let always_load = meta
                    .and_then(|m| m.get("anthropic/alwaysLoad"))
                    .and_then(serde_json::Value::as_bool)
                    .unwrap_or(false);
                // Cut here, not only in the state: a 50 MB description is not kept twice.
                let description = t.description.map(|d| crate::mcp::truncate_description(&d)).unwrap_or_default();
                ToolSpec {
                    name: t.name.to_string(),
                    description,
                    search_hint: hint,
                    always_load,
                    input_schema: Some(t.input_schema.clone()),
                    annotations: t.annotations.as_ref().map(|a| capc_compiler::model::McpToolAnnotations {
                        title: a.title.clone(),
                        read_only_hint: a.read_only_hint,
                        destructive_hint: a.destructive_hint,
                        idempotent_hint: a.idempotent_hint,
                        open_world_hint: a.open_world_hint,
                    }),
                }
            })
            .collect()
    });
    update.prompts = read("prompts", prompts, &mut problems).map(|p| {
        p.into_iter()
            .map(|p| crate::mcp::PromptSpec::Full {
                name: p.name,
                arguments: p.arguments.unwrap_or_default().into_iter().map(|a| a.name).collect(),
            })
            .collect()
    });
    update.resources = read("resources", resources, &mut problems).map(|r| r.into_iter().map(|r| r.uri).collect());
    Ok(Listing { update, problems })
}

/// On a 2026-07-28 session, list_changed notifications come only on a `subscriptions/listen`
/// stream. It is opened before the first listing (a change in between is not
/// lost) and reopened up to [`LISTEN_REOPENS`] times when the server ends it.
pub(super) async fn listen(conn: &mut Connection, timeout: Duration) -> Result<(), String> {
    let modern = conn.service.peer_info().is_some_and(|info| !info.protocol_version.has_initialize());
    if !modern {
        return Ok(());
    }
    let peer = conn.service.peer().clone();
    let filter =
        SubscriptionFilter::builder().tools_list_changed().prompts_list_changed().resources_list_changed().build();
    let open = move |peer: rmcp::Peer<RoleClient>, filter: SubscriptionFilter| async move {
        tokio::time::timeout(timeout, peer.listen(filter))
            .await
            .map_err(|_| format!("subscriptions/listen took over {}", seconds(timeout)))?
            .map_err(|e| format!("subscriptions/listen failed: {e}"))
    };
    let mut subscription = open(peer.clone(), filter.clone()).await?;
    let changed = conn.changed.clone();
    conn.listener = Some(tokio::spawn(async move {
        let mut reopens = 0;
        loop {
            match subscription.next().await {
                Ok(Some(notification)) => {
                    let kind = match notification {
                        ServerNotification::ToolListChangedNotification(_) => Kind::Tools,
                        ServerNotification::PromptListChangedNotification(_) => Kind::Prompts,
                        ServerNotification::ResourceListChangedNotification(_) => Kind::Resources,
                        _ => continue,
                    };
                    if changed.send(kind).is_err() {
                        return;
                    }
                }
                // Notifications were dropped: every list may have changed.
                Err(rmcp::ServiceError::SubscriptionLagged { .. }) => {
                    for kind in ALL {
                        let _ = changed.send(kind);
                    }
                }
                Ok(None) | Err(_) => {
                    if peer.is_transport_closed() || reopens == LISTEN_REOPENS {
                        return;
                    }
                    reopens += 1;
                    match open(peer.clone(), filter.clone()).await {
                        Ok(again) => subscription = again,
                        Err(_) => return,
                    }
                }
            }
        }
    }));
    Ok(())
}

/// How often a `subscriptions/listen` stream the server ended is reopened.
pub(crate) const LISTEN_REOPENS: u32 = 3;
