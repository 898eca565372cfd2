//! Call queues: a number whose callers wait, with hold music, until one of an ordered
//! set of extensions answers, or go elsewhere after waiting too long.

use serde::Serialize;
use serde_json::{Value, json};
use utoipa::ToSchema;

use super::NAME;
use super::destination::{Destination, DestinationInput};
use super::ivr::PATH;
use crate::declare::{Body, ID_OR_NONE, Listed, OptionalRef, Stored};
use crate::ids::{ExtensionId, MediaFileId, MusicOnHoldId, QueueId, TenantId};
use crate::list::TenantFilter;
use crate::validation::{
    Among, FLAG, ID, Int, ListOf, Nested, ObjectReader, PlanNumber, among, int, list_of, nested,
    plan_number,
};

/// A queue number: 1 to 32 dial characters, unique in the tenant's dial plan.
pub const NUMBER: PlanNumber = plan_number(1, 32);

crate::closed_set! {
    /// How a queue picks the member to ring.
    pub enum QueueStrategy {
        /// Every member rings at once.
        RingAll = "ringAll",
        /// Members ring in turn, starting after the last one rung.
        RoundRobin = "roundRobin",
        /// The member idle longest rings.
        LeastRecent = "leastRecent",
        /// The member that took the fewest calls rings.
        FewestCalls = "fewestCalls",
        /// A member picked at random rings.
        Random = "random",
    }
}

/// A member as answered: the extension, resolved, with its place and penalty.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[serde(rename_all = "camelCase")]
pub struct QueueMember {
    /// The extension's id.
    pub id: ExtensionId,
    /// The extension's name.
    pub name: String,
    /// The extension's number.
    pub number: String,
    /// Position among the members.
    pub order: i64,
    /// Members with a lower penalty are rung first (0 to 100).
    pub penalty: i64,
}

/// A call queue.
#[derive(Clone, Debug, Serialize, ToSchema, Listed, Stored)]
#[cfg_attr(feature = "sqlx", derive(crate::declare::FromRow))]
#[serde(rename_all = "camelCase")]
#[stored(table = "queues", alias = "q")]
#[list(sort(id, name, number, tenant_id), filter = TenantFilter, table = "q", search("name", "number"))]
pub struct Queue {
    /// The queue's id.
    pub id: QueueId,
    /// The tenant it belongs to.
    pub tenant_id: TenantId,
    /// Its name.
    pub name: String,
    /// The number dialled to reach it, unique in the tenant's dial plan.
    pub number: String,
    /// How a member is picked: `ringAll`, `roundRobin`, `leastRecent`, `fewestCalls`, `random`.
    #[schema(value_type = String)]
    pub strategy: QueueStrategy,
    /// The member extensions, by `order`.
    #[stored(skip)]
    pub members: Vec<QueueMember>,
    /// Longest a caller waits before the timeout destination (seconds; 0: no limit).
    pub max_wait_seconds: i64,
    /// Most callers waiting at once (0: no limit); the next goes to the timeout destination.
    pub max_callers: i64,
    /// The media file played while waiting; 0 for none. Kept for compatibility:
    /// `musicOnHoldId`, when set, is played instead.
    pub hold_media_file_id: OptionalRef<MediaFileId>,
    /// The music on hold (a playlist of the tenant) played while waiting; it wins over
    /// `holdMediaFileId`. Null: `holdMediaFileId`, else the tenant's default music on hold.
    pub music_on_hold_id: Option<MusicOnHoldId>,
    /// 1: callers hear their position in the queue.
    pub announce_position: i64,
    /// Seconds a member rests after a call before the queue rings them again (0: none).
    pub wrap_up_seconds: i64,
    /// Where a caller goes after `maxWaitSeconds` or beyond `maxCallers`; null: the call ends.
    #[stored(skip)]
    pub timeout_destination: Option<Destination>,
}

/// A member as sent: `{id, order?, penalty?}`, the id an extension of the tenant.
#[derive(Clone, Debug, PartialEq, Eq, Body)]
pub struct QueueMemberInput {
    /// The extension's id, of the same tenant, each once in a queue.
    #[field(rule = ID)]
    pub id: ExtensionId,
    /// Position among the members (defaults to the array position, from 1).
    #[field(rule = ORDER)]
    pub order: Option<i64>,
    /// Lower rings first, 0 (the default) to 100.
    #[field(rule = PENALTY, default = 0)]
    pub penalty: i64,
}

impl QueueMemberInput {
    /// The member's position: as sent, else its place in the list (from 1).
    pub fn position(&self, index: usize) -> i64 {
        self.order
            .unwrap_or_else(|| i64::try_from(index).map_or(i64::MAX, |i| i + 1))
    }
}

const STRATEGY: Among<QueueStrategy> = among();
const ORDER: Int = int(0, 1_000_000);
const PENALTY: Int = int(0, 100);
const MAX_WAIT: Int = int(0, 86_400);
const MAX_CALLERS: Int = int(0, 10_000);
const WRAP_UP: Int = int(0, 3600);
/// The members of a queue.
const MEMBERS: ListOf<Nested<QueueMemberInput>> = list_of(nested::<QueueMemberInput>(), 0, 500);

/// Refuses an extension listed twice, which no schema states.
fn check_members(members: Option<&[QueueMemberInput]>, r: &mut ObjectReader<'_>) -> bool {
    let before = r.problem_count();
    let mut seen = std::collections::HashSet::new();
    for (index, member) in members.unwrap_or_default().iter().enumerate() {
        if !seen.insert(member.id) {
            r.problem_at(&format!("members/{index}/id"), "is listed twice");
        }
    }
    r.problem_count() == before
}

/// The body of `POST /v2/admin/queues/`.
// `UpdateQueue`, the body of `PATCH`, is generated from it; a field with `column` is
// stored in the queue's row (docs/decisions.md, "Declared once").
#[derive(Clone, Debug, Body)]
#[body(
    placement(tenant),
    check = CreateQueue::check,
    example = CreateQueue::example_body,
    update(
        name = UpdateQueue,
        doc = "The body of `PATCH /v2/admin/queues/{id}`: fields not sent stay unchanged; a sent\n`members` replaces the members.",
        check = UpdateQueue::check,
    )
)]
pub struct CreateQueue {
    /// The owning tenant; tenant-scoped callers may omit it.
    #[field(rule = ID)]
    pub tenant_id: Option<TenantId>,
    /// Its name.
    #[field(rule = NAME, column)]
    pub name: String,
    /// Its number, free in the tenant's dial plan.
    #[field(rule = NUMBER, column)]
    pub number: String,
    /// How a member is picked (default `ringAll`).
    #[field(rule = STRATEGY, default = QueueStrategy::RingAll, column)]
    pub strategy: QueueStrategy,
    /// The member extensions, in order.
    #[field(rule = MEMBERS, default = Vec::new())]
    pub members: Vec<QueueMemberInput>,
    /// Longest wait in seconds (default 300; 0: no limit).
    #[field(rule = MAX_WAIT, default = 300, column)]
    pub max_wait_seconds: i64,
    /// Most callers waiting (default 0: no limit).
    #[field(rule = MAX_CALLERS, default = 0, column)]
    pub max_callers: i64,
    /// A media file of the tenant played while waiting; 0 (the default) for none.
    #[field(rule = ID_OR_NONE, default = OptionalRef(None), column)]
    pub hold_media_file_id: OptionalRef<MediaFileId>,
    /// A music on hold of the tenant played while waiting (wins over
    /// `holdMediaFileId`); null (the default) for none.
    #[field(rule = ID, nullable, column)]
    pub music_on_hold_id: Option<MusicOnHoldId>,
    /// 1: announce callers' position; 0 (the default) not.
    #[field(rule = FLAG, default = 0, column)]
    pub announce_position: i64,
    /// Seconds a member rests after a call before the queue rings them again, 0 (the
    /// default) to 3600.
    #[field(rule = WRAP_UP, default = 0, column)]
    pub wrap_up_seconds: i64,
    /// Where a caller goes after waiting too long (default: the call ends).
    #[field(rule = PATH, nullable)]
    pub timeout_destination: Option<DestinationInput>,
}

impl CreateQueue {
    fn check(&self, r: &mut ObjectReader<'_>) -> bool {
        check_members(Some(&self.members), r)
    }

    fn example_body() -> Value {
        json!({"name": "Support", "number": "600", "strategy": "roundRobin",
               "members": [{"id": 1, "order": 1, "penalty": 0}],
               "maxWaitSeconds": 300, "maxCallers": 10, "holdMediaFileId": 0,
               "musicOnHoldId": 1, "wrapUpSeconds": 15,
               "announcePosition": 1, "timeoutDestination": {"id": 1, "destType": "VOICEMAIL"}})
    }
}

impl UpdateQueue {
    fn check(&self, r: &mut ObjectReader<'_>) -> bool {
        check_members(self.members.as_deref(), r)
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;
    use crate::declare::{ColumnValue, Columns};
    use crate::validation::FromBody;

    fn int(value: i64) -> ColumnValue {
        ColumnValue::Int(Some(value))
    }

    fn text(value: &str) -> ColumnValue {
        ColumnValue::Text(Some(value.to_owned()))
    }

    #[test]
    fn a_create_writes_every_column_with_its_default() {
        let body = CreateQueue::from_body(&json!({"name": "Support", "number": "600"}))
            .expect("a bare queue is a body");
        assert_eq!(
            body.columns(),
            vec![
                ("name", text("Support")),
                ("number", text("600")),
                ("strategy", text("ringAll")),
                ("max_wait_seconds", int(300)),
                ("max_callers", int(0)),
                ("hold_media_file_id", ColumnValue::Int(None)),
                ("music_on_hold_id", ColumnValue::Int(None)),
                ("announce_position", int(0)),
                ("wrap_up_seconds", int(0)),
            ]
        );
    }

    #[test]
    fn an_update_writes_the_columns_sent_and_clears_with_null_or_zero() {
        let body = UpdateQueue::from_body(&json!({
            "number": "601", "holdMediaFileId": 0, "musicOnHoldId": null,
            "members": [], "timeoutDestination": null
        }))
        .expect("clearing is a body");
        assert_eq!(
            body.columns(),
            vec![
                ("number", text("601")),
                ("hold_media_file_id", ColumnValue::Int(None)),
                ("music_on_hold_id", ColumnValue::Int(None)),
            ]
        );
        assert_eq!(body.members, Some(Vec::new()));
        assert!(matches!(body.timeout_destination, Some(None)));
        let nothing = UpdateQueue::from_body(&json!({})).expect("nothing is a body");
        assert!(nothing.columns().is_empty());
        assert!(nothing.name.is_none() && nothing.strategy.is_none());
    }

    #[test]
    fn an_update_keeps_the_create_rules() {
        assert!(UpdateQueue::from_body(&json!({"maxWaitSeconds": 86_401})).is_err());
        assert!(UpdateQueue::from_body(&json!({"strategy": "loudest"})).is_err());
        assert!(UpdateQueue::from_body(&json!({"name": null})).is_err());
        assert!(
            UpdateQueue::from_body(&json!({"members": [{"id": 1}, {"id": 1}]})).is_err(),
            "the update's own check runs"
        );
        // The placement is the create's alone: an update ignores `tenantId`.
        assert!(UpdateQueue::from_body(&json!({"tenantId": 2})).is_ok());
    }
}
