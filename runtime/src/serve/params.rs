//! Requests whose parameters rmcp cannot read, answered before rmcp sees them (by the stdio
//! line filter and by the HTTP transport's guard): rmcp takes such a request for one of a
//! method it does not know.

/// The JSON-RPC code for parameters a method cannot take.
const INVALID_PARAMS: i32 = -32602;

/// The answer to a request of an MCP method whose parameters do not read as that method's: rmcp
/// would take it for a request of a method it does not know and answer "method not found"
/// (`-32601`), or answer "invalid request" without its id, where JSON-RPC says "invalid params"
/// (`-32602`) and the id. `None` for anything else, which rmcp answers (a notification gets no
/// answer; an id that is neither a string nor a number is an invalid request).
pub(crate) fn invalid(message: &serde_json::Value) -> Option<String> {
    let id = message.get("id").filter(|id| id.is_string() || id.is_number())?;
    let method = message.get("method")?.as_str()?;
    let mut request = serde_json::Map::new();
    request.insert("method".to_string(), method.into());
    if let Some(params) = message.get("params") {
        request.insert("params".to_string(), params.clone());
    }
    let why = typed_params_error(method, &serde_json::Value::Object(request))?;
    // MCP's parameters are named: an array (or another value) reads as no type rmcp names.
    let why = match message.get("params") {
        Some(params) if !params.is_object() => "`params` must be an object".to_string(),
        _ => why,
    };
    let message = format!("Invalid params for `{method}`: {why}");
    Some(
        serde_json::json!({"jsonrpc": "2.0", "id": id, "error": {"code": INVALID_PARAMS, "message": message}})
            .to_string(),
    )
}

/// Why `request` (`method` and `params`) does not read as the request rmcp reads for `method`;
/// `None` when it does, or when rmcp reads no such method.
fn typed_params_error(method: &str, request: &serde_json::Value) -> Option<String> {
    use rmcp::model::*;
    fn check<T: serde::de::DeserializeOwned>(request: &serde_json::Value) -> Option<String> {
        T::deserialize(request).err().map(|e| e.to_string())
    }
    type Check = fn(&serde_json::Value) -> Option<String>;
    // Every typed request of rmcp's `ClientRequest`, by its method (those rmcp deprecates still
    // reach it, so they are checked as it reads them).
    #[allow(deprecated)]
    let typed: [(&str, Check); 21] = [
        (PingRequestMethod::VALUE, check::<PingRequest>),
        (InitializeResultMethod::VALUE, check::<InitializeRequest>),
        (DiscoverRequestMethod::VALUE, check::<DiscoverRequest>),
        (CompleteRequestMethod::VALUE, check::<CompleteRequest>),
        (SetLevelRequestMethod::VALUE, check::<SetLevelRequest>),
        (GetPromptRequestMethod::VALUE, check::<GetPromptRequest>),
        (ListPromptsRequestMethod::VALUE, check::<ListPromptsRequest>),
        (ListResourcesRequestMethod::VALUE, check::<ListResourcesRequest>),
        (ListResourceTemplatesRequestMethod::VALUE, check::<ListResourceTemplatesRequest>),
        (ReadResourceRequestMethod::VALUE, check::<ReadResourceRequest>),
        (SubscriptionsListenRequestMethod::VALUE, check::<SubscriptionsListenRequest>),
        (SubscribeRequestMethod::VALUE, check::<SubscribeRequest>),
        (UnsubscribeRequestMethod::VALUE, check::<UnsubscribeRequest>),
        (CallToolRequestMethod::VALUE, check::<CallToolRequest>),
        (ListToolsRequestMethod::VALUE, check::<ListToolsRequest>),
        (GetTaskMethod::VALUE, check::<GetTaskRequest>),
        (UpdateTaskMethod::VALUE, check::<UpdateTaskRequest>),
        (CancelTaskMethod::VALUE, check::<CancelTaskRequest>),
        (ListSkillsRequestMethod::VALUE, check::<ListSkillsRequest>),
        (GetSkillRequestMethod::VALUE, check::<GetSkillRequest>),
        (ReadResourceDirectoryRequestMethod::VALUE, check::<ReadResourceDirectoryRequest>),
    ];
    let (_, check) = typed.iter().find(|(name, _)| *name == method)?;
    check(request)
}
