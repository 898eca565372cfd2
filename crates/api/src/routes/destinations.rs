//! `GET /destinations/graph` (and `/v2/…`): where calls to a tenant's phone numbers can
//! go, as a graph, in JSON, Mermaid or Graphviz DOT; `?at=` marks the path a call takes
//! at an instant, `?target=` answers which numbers reach a record.

use axum::Json;
use axum::extract::State;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use switchboard_app::tenancy;
use switchboard_domain::declare::DeclaredFilter;
use switchboard_domain::routing::{self, DEFAULT_DEPTH, Graph, GraphFormat, GraphQuery, Request};
use switchboard_domain::{Location, Scope};
use utoipa::IntoParams;
use utoipa::openapi::path::{Parameter, ParameterIn};

use crate::auth::caller::{Caller, IvrsRead};
use crate::error::{ApiError, ApiResult};
use crate::extract::QueryParams;
use crate::state::AppState;

/// The graph's query parameters, documented from the rules that read them.
pub struct GraphParams;

impl IntoParams for GraphParams {
    fn into_params(_: impl Fn() -> Option<ParameterIn>) -> Vec<Parameter> {
        let mut params = Vec::new();
        GraphQuery::parameters(&mut params);
        params
    }
}

/// The routing graph of one tenant: nodes `{id, type, label, href}` (each record once),
/// edges `{from, to, kind, order}` from every phone number in the caller's scope (or
/// `root`), at most `maxDepth` deep; loops are marked `cycle` and not followed;
/// `issues` lists dangling references, IVRs without a timeout path and business hours
/// without a closed path. `at` marks each edge `active` as a call at that instant goes
/// (holidays included); `target` keeps what reaches that node and lists the phone
/// numbers (as dialled) in `reachedFrom`. `format=mermaid` or `format=dot` answer text.
#[utoipa::path(get, operation_id = "getDestinationGraph", path = "/v2/destinations/graph", tag = "destinations",
    params(GraphParams),
    responses((status = 200, description = "The routing graph", content(
        (Graph = "application/json"),
        (String = "text/vnd.mermaid"),
        (String = "text/vnd.graphviz"),
    ))))]
pub async fn graph(
    caller: Caller<IvrsRead>,
    State(state): State<AppState>,
    QueryParams(query): QueryParams<GraphQuery>,
) -> ApiResult<Response> {
    answer(caller, state, query).await
}

/// The routing graph at the release notes' path.
#[utoipa::path(get, operation_id = "getDestinationGraphUnversioned", path = "/destinations/graph", tag = "destinations",
    params(GraphParams),
    responses((status = 200, description = "The routing graph", content(
        (Graph = "application/json"),
        (String = "text/vnd.mermaid"),
        (String = "text/vnd.graphviz"),
    ))))]
pub async fn graph_unversioned(
    caller: Caller<IvrsRead>,
    State(state): State<AppState>,
    QueryParams(query): QueryParams<GraphQuery>,
) -> ApiResult<Response> {
    answer(caller, state, query).await
}

async fn answer(
    caller: Caller<IvrsRead>,
    state: AppState,
    query: GraphQuery,
) -> ApiResult<Response> {
    let tenant = match (caller.scope.own_tenant(), query.tenant_id) {
        (Some(own), None) => own,
        (_, Some(tenant)) => {
            tenancy::check_tenant_filter(&state, &caller, Some(tenant)).await?;
            tenant
        }
        (None, None) => {
            return Err(ApiError::invalid(
                Location::Query,
                "tenantId",
                "is required: the graph is of one tenant",
            ));
        }
    };
    if caller.scope == Scope::Platform
        && !switchboard_db::tenants::in_scope(&state.db, &caller.scope, tenant).await?
    {
        return Err(ApiError::invalid(
            Location::Query,
            "tenantId",
            "must name an existing tenant",
        ));
    }
    let routing = switchboard_db::routing::load(&state.db, &caller.scope, tenant).await?;
    if let Some(root) = &query.root
        && routing.nodes.get(root).is_none_or(|node| node.opaque)
    {
        return Err(ApiError::not_found());
    }
    // Asking what reaches another branch's record is asking about that record: out of
    // reach, as reading it is.
    if let Some(target) = &query.target
        && routing.nodes.get(target).is_some_and(|node| node.opaque)
    {
        return Err(ApiError::not_found());
    }
    let request = Request {
        roots: query.root.clone().into_iter().collect(),
        max_depth: query
            .max_depth
            .and_then(|d| usize::try_from(d).ok())
            .unwrap_or(DEFAULT_DEPTH),
        at: query.at,
        target: query.target.clone(),
    };
    // Bounded by the tenant's size, but schedule evaluation and the walk are CPU work:
    // off the request threads.
    let graph = tokio::task::spawn_blocking(move || routing::build(&routing, &request))
        .await
        .map_err(ApiError::internal)?;
    Ok(match query.format {
        Some(GraphFormat::Mermaid) => (
            [(header::CONTENT_TYPE, "text/vnd.mermaid; charset=utf-8")],
            graph.mermaid(),
        )
            .into_response(),
        Some(GraphFormat::Dot) => (
            [(header::CONTENT_TYPE, "text/vnd.graphviz; charset=utf-8")],
            graph.dot(),
        )
            .into_response(),
        Some(GraphFormat::Json) | None => Json(graph).into_response(),
    })
}
