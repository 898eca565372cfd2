//! Destinations (CONTRACT §2): where a call goes — an extension, an IVR, a paging group,
//! an extension's mailbox, a dialled number, or a hang-up — in ordered lists.

use serde::Serialize;
use utoipa::ToSchema;

use crate::validation::{Broken, ObjectReader, OneOf, int, text};

/// The destination types.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DestType {
    /// An extension.
    Ext,
    /// An IVR.
    Ivr,
    /// A paging group.
    PagingGroup,
    /// An extension's mailbox.
    Voicemail,
    /// A dialled number, carried in `number`.
    External,
    /// Hang up.
    Hangup,
}

impl DestType {
    /// Every type, as accepted in `destType`.
    pub const NAMES: &'static [&'static str] = &[
        "EXT",
        "IVR",
        "PAGING_GROUP",
        "VOICEMAIL",
        "EXTERNAL",
        "HANGUP",
    ];

    /// The wire name.
    pub fn name(self) -> &'static str {
        match self {
            DestType::Ext => "EXT",
            DestType::Ivr => "IVR",
            DestType::PagingGroup => "PAGING_GROUP",
            DestType::Voicemail => "VOICEMAIL",
            DestType::External => "EXTERNAL",
            DestType::Hangup => "HANGUP",
        }
    }

    /// The type of a wire name.
    pub fn from_name(name: &str) -> Option<DestType> {
        [
            DestType::Ext,
            DestType::Ivr,
            DestType::PagingGroup,
            DestType::Voicemail,
            DestType::External,
            DestType::Hangup,
        ]
        .into_iter()
        .find(|t| t.name() == name)
    }

    /// Whether `id` names a record (as opposed to EXTERNAL and HANGUP, which name none).
    pub fn has_target(self) -> bool {
        !matches!(self, DestType::External | DestType::Hangup)
    }
}

/// A destination as written in a request: `{id, destType, order?, typeSrc?, number?}`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DestinationInput {
    /// The target's id (0 for EXTERNAL and HANGUP).
    pub id: i64,
    /// The target's type.
    pub dest_type: DestType,
    /// Position in the list; the list's own order when absent.
    pub order: i64,
    /// The routing slot it came from, kept as given.
    pub type_src: Option<String>,
    /// The dialled number of an EXTERNAL destination.
    pub number: Option<String>,
}

/// A destination in a request body, for the API document.
#[derive(Clone, Debug, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct DestinationBody {
    /// The target's id: an extension, IVR or paging group of the same tenant (for
    /// VOICEMAIL, the extension whose mailbox); 0 for EXTERNAL and HANGUP.
    #[schema(minimum = 0)]
    pub id: i64,
    /// EXT, IVR, PAGING_GROUP, VOICEMAIL, EXTERNAL or HANGUP.
    #[schema(pattern = "^(EXT|IVR|PAGING_GROUP|VOICEMAIL|EXTERNAL|HANGUP)$")]
    pub dest_type: String,
    /// Position in the list (defaults to the array position, from 1).
    #[schema(nullable = false, minimum = 0, maximum = 1000000)]
    pub order: Option<i64>,
    /// The routing slot it came from.
    #[schema(nullable = false, max_length = 64)]
    pub type_src: Option<String>,
    /// The dialled number of an EXTERNAL destination.
    #[schema(
        nullable = false,
        min_length = 1,
        max_length = 32,
        pattern = "^[0-9*#+]+$"
    )]
    pub number: Option<String>,
}

/// A paging group member in a request body: an extension of the same tenant.
#[derive(Clone, Debug, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct MemberBody {
    /// The extension's id.
    #[schema(minimum = 1)]
    pub id: i64,
    /// Always `EXT`.
    #[schema(pattern = "^EXT$")]
    pub dest_type: String,
    /// Position in the group (defaults to the array position, from 1).
    #[schema(nullable = false, minimum = 0, maximum = 1000000)]
    pub order: Option<i64>,
    /// The routing slot it came from.
    #[schema(nullable = false, max_length = 64)]
    pub type_src: Option<String>,
}

/// A destination as answered, with its target's name and number resolved.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
#[serde(rename_all = "camelCase")]
pub struct Destination {
    /// The target's id (0 for EXTERNAL and HANGUP).
    pub id: i64,
    /// The target's type.
    pub dest_type: String,
    /// Position in the list.
    pub order: i64,
    /// The routing slot it came from.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schema(nullable = false)]
    pub type_src: Option<String>,
    /// The target's name.
    pub name: Option<String>,
    /// The target's number (the dialled number for EXTERNAL).
    pub number: Option<String>,
}

/// Reads a destination list at `key`, allowing only `allowed` types; absent is `Ok(None)`.
pub fn read_list(
    r: &mut ObjectReader<'_>,
    key: &str,
    allowed: &'static [&'static str],
) -> Result<Option<Vec<DestinationInput>>, Broken> {
    let mut position = 0;
    r.objects(key, |item| {
        position += 1;
        let id = item.required("id", &int(0, i64::MAX));
        let dest_type = item.required("destType", &OneOf(allowed));
        let order = item.optional("order", &int(0, 1_000_000));
        let type_src = item.optional("typeSrc", &text(0, 64));
        let number = item.optional("number", &crate::validation::dial(1, 32));
        let dest_type = dest_type.and_then(|t| DestType::from_name(&t))?;
        let (id, order, type_src, number) = (id?, order.ok()?, type_src.ok()?, number.ok()?);
        if dest_type.has_target() && id < 1 {
            item.problem("id", "must be at least 1");
            return None;
        }
        if dest_type == DestType::External && number.is_none() {
            item.problem("number", "is required for EXTERNAL destinations");
            return None;
        }
        Some(DestinationInput {
            id: if dest_type.has_target() { id } else { 0 },
            dest_type,
            order: order.unwrap_or(position),
            type_src,
            number: if dest_type == DestType::External {
                number
            } else {
                None
            },
        })
    })
}
