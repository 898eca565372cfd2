//! Destinations (interface §2): where a call goes — an extension, an IVR, a paging group,
//! an extension's mailbox, a dialled number, or a hang-up — in ordered lists.

use serde::Serialize;
use utoipa::ToSchema;

use serde_json::{Value, json};
use utoipa::openapi::schema::{ArrayBuilder, Object, Schema};
use utoipa::openapi::{Ref, RefOr};

use crate::validation::{Among, At, Field, Int, ObjectReader, Rule, dial, int, text};

/// Declares the destination types once: the enum, its wire names and their lookup.
/// The types before the `;` are where a call can be routed; those after it name records
/// other lists hold (music on hold's media files) and no call-routing list accepts.
macro_rules! dest_types {
    ($($(#[$doc:meta])* $variant:ident = $name:literal),* $(,)?
     ; $($(#[$odoc:meta])* $other:ident = $oname:literal),* $(,)?) => {
        dest_types!(@all [$($(#[$doc])* $variant = $name,)* $($(#[$odoc])* $other = $oname,)*]);

        impl DestType {
            /// The types a call can be routed to, as accepted in call-routing lists.
            pub const CALL_TARGETS: &'static [DestType] = &[$(DestType::$variant,)*];
        }
    };
    (@all [$($(#[$doc:meta])* $variant:ident = $name:literal,)*]) => {
        crate::closed_set! {
            /// The destination types.
            pub enum DestType {
                $($(#[$doc])* $variant = $name,)*
            }
        }

        impl DestType {
            /// The wire name (its text, as stored).
            pub fn name(self) -> &'static str {
                self.as_str()
            }
        }
    };
}

dest_types! {
    /// An extension.
    Ext = "EXT",
    /// An IVR.
    Ivr = "IVR",
    /// A paging group.
    PagingGroup = "PAGING_GROUP",
    /// An extension's mailbox.
    Voicemail = "VOICEMAIL",
    /// A dialled number, carried in `number`.
    External = "EXTERNAL",
    /// Hang up.
    Hangup = "HANGUP",
    /// A call queue.
    Queue = "QUEUE",
    /// A business-hours record: its open or closed list, by the time of the call.
    BusinessHour = "BUSINESS_HOUR",
    /// A pharmacy agent (a pharmacy's refill line).
    PharmacyAgent = "PHARMACY_AGENT",
    ;
    /// A media file of the tenant (a music-on-hold playlist's entries).
    MediaFile = "MEDIA_FILE",
}

impl DestType {
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

/// A destination as answered, with its target's name and number resolved.
#[derive(Clone, Debug, PartialEq, Serialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(crate::declare::FromRow))]
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

/// The rule of a destination list in a body: items `{id, destType, order?, typeSrc?,
/// number?}` of the `allowed` types, each `id` a record of that type (checked against the
/// tenant by the HTTP layer), `number` required for `EXTERNAL`; documented under `name`.
#[derive(Clone, Copy, Debug)]
pub struct Destinations {
    /// The schema's name in the document.
    pub name: &'static str,
    /// The destination types the list takes.
    pub allowed: &'static [DestType],
    /// Fewest items.
    pub min: usize,
}

/// Any destination type, in any list of routing choices.
pub const ANY_DESTINATION: Destinations = Destinations {
    name: "DestinationBody",
    allowed: DestType::CALL_TARGETS,
    min: 0,
};

const ORDER: Int = int(0, 1_000_000);
const TYPE_SRC: crate::validation::Text = text(0, 64);
const EXTERNAL_NUMBER: crate::validation::Chars = dial(1, 32);
/// The resolved number an answer gives a destination that is not EXTERNAL: read-only.
const RESOLVED: crate::validation::Text = text(0, 255);

impl Destinations {
    fn read_item(&self, r: &mut ObjectReader<'_>, position: i64) -> Option<DestinationInput> {
        let id = r.required("id", &int(0, i64::MAX));
        let dest_type = r.required("destType", &Among(self.allowed));
        let order = r.optional("order", &ORDER);
        let type_src = r.optional("typeSrc", &TYPE_SRC);
        let dest_type = dest_type?;
        // `number` is the dialled number of an EXTERNAL destination; of any other it is
        // the answer's resolved number (or null), read-only: a destination read from an
        // answer is accepted back as it is (interface §2), its `number` and `name` ignored.
        let number = if dest_type == DestType::External {
            r.nullable("number", &EXTERNAL_NUMBER).map(Option::flatten)
        } else {
            r.nullable("number", &RESOLVED).map(|_| None)
        };
        // The resolved `name` is ignored too, but held to what the document says of it.
        let name = r.nullable("name", &RESOLVED);
        let (id, order, type_src, number) = (id?, order.ok()?, type_src.ok()?, number.ok()?);
        name.ok()?;
        if dest_type.has_target() && id < 1 {
            r.problem("id", "must be at least 1");
            return None;
        }
        if dest_type == DestType::External && number.is_none() {
            r.problem("number", "is required for EXTERNAL destinations");
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
    }

    fn item_schema(&self) -> Object {
        let mut item = crate::declare::object(Some(
            "A destination: the target's id (0 for EXTERNAL and HANGUP) and type, its \
             position and routing slot, and for EXTERNAL the dialled number.",
        ));
        let property = |item: &mut Object, key: &str, schema: Schema, doc: &str, required| {
            crate::declare::property(
                item,
                key,
                RefOr::T(schema),
                Value::Null,
                Some(doc),
                required,
                false,
            );
        };
        property(
            &mut item,
            "id",
            Rule::schema(&int(0, i64::MAX)),
            "The target's id: a record of the type, of the same tenant (for VOICEMAIL, the extension whose mailbox); 0 for EXTERNAL and HANGUP.",
            true,
        );
        property(
            &mut item,
            "destType",
            Rule::schema(&Among(self.allowed)),
            "The target's type.",
            true,
        );
        property(
            &mut item,
            "order",
            Rule::schema(&ORDER),
            "Position in the list (defaults to the array position, from 1).",
            false,
        );
        property(
            &mut item,
            "typeSrc",
            Rule::schema(&TYPE_SRC),
            "The routing slot it came from, kept as sent.",
            false,
        );
        let targets: Vec<&str> = self
            .allowed
            .iter()
            .copied()
            .filter(|t| t.has_target())
            .map(DestType::as_str)
            .collect();
        // An answer's destination is accepted back as it is: its resolved `name`, and
        // the `number` of a destination that is not EXTERNAL, are read-only and ignored.
        crate::declare::property(
            &mut item,
            "name",
            RefOr::T(Rule::schema(&RESOLVED)),
            Value::Null,
            Some("The target's name, as answers resolve it: read-only, ignored."),
            false,
            true,
        );
        let number_doc = if self.allowed.contains(&DestType::External) {
            "The dialled number of an EXTERNAL destination (required there); of any other type, the target's number as answers resolve it: read-only, ignored."
        } else {
            "The target's number as answers resolve it: read-only, ignored."
        };
        crate::declare::property(
            &mut item,
            "number",
            RefOr::T(Rule::schema(&RESOLVED)),
            Value::Null,
            Some(number_doc),
            false,
            true,
        );
        if self.allowed.contains(&DestType::External) {
            let dialled = Rule::schema(&EXTERNAL_NUMBER);
            crate::declare::rule(
                &mut item,
                json!({"if": {"properties": {"destType": {"const": "EXTERNAL"}}},
                       "then": {"required": ["number"], "properties": {"number": dialled}}}),
            );
        }
        if !targets.is_empty() {
            crate::declare::rule(
                &mut item,
                json!({"if": {"properties": {"destType": {"enum": targets}}},
                       "then": {"properties": {"id": {"minimum": 1}}}}),
            );
        }
        item
    }
}

impl Field for Destinations {
    type Output = Vec<DestinationInput>;

    fn read(&self, value: &Value, at: &mut At<'_>) -> Option<Vec<DestinationInput>> {
        let Value::Array(items) = value else {
            at.problem("must be an array");
            return None;
        };
        if items.len() < self.min {
            // A list of one type says what it lacks (`at least one media file`).
            let what = match self.allowed {
                [only] => only.as_str().to_lowercase().replace('_', " "),
                _ => "destination".to_owned(),
            };
            let count = match self.min {
                1 => "one".to_owned(),
                n => n.to_string(),
            };
            let plural = if self.min == 1 { "" } else { "s" };
            at.problem(format!("must hold at least {count} {what}{plural}"));
            return None;
        }
        let mut out = Vec::with_capacity(items.len());
        let mut broken = false;
        for (i, item) in items.iter().enumerate() {
            let mut item_at = at.child(&i.to_string());
            let position = i64::try_from(i).unwrap_or(i64::MAX - 1) + 1;
            match item_at
                .object(item)
                .and_then(|mut r| self.read_item(&mut r, position))
            {
                Some(destination) => out.push(destination),
                None => broken = true,
            }
        }
        (!broken).then_some(out)
    }

    fn field_schema(&self) -> RefOr<Schema> {
        let mut array = ArrayBuilder::new().items(RefOr::Ref(Ref::from_schema_name(self.name)));
        if self.min > 0 {
            array = array.min_items(Some(self.min));
        }
        RefOr::T(array.into())
    }

    fn field_example(&self) -> Value {
        let dest_type = self.allowed.first().copied().unwrap_or(DestType::Hangup);
        let mut item = json!({"id": 1, "destType": dest_type.as_str(), "order": 1});
        if dest_type == DestType::External {
            item["number"] = json!("5551234");
        }
        json!([item])
    }

    fn components(&self, out: &mut Vec<(String, RefOr<Schema>)>) {
        if out.iter().all(|(name, _)| name != self.name) {
            out.push((
                self.name.to_owned(),
                RefOr::T(Schema::Object(self.item_schema())),
            ));
        }
    }
}

/// The rule of one destination in a body (an IVR's timeout path, a phone number's
/// route): an object read like an item of `list`, documented as that list's item schema.
#[derive(Clone, Copy, Debug)]
pub struct OneDestination(pub Destinations);

impl OneDestination {
    /// Reads one destination object at `at` (its order defaults to 1).
    pub fn read_at(&self, value: &Value, at: &mut At<'_>) -> Option<DestinationInput> {
        let mut reader = at.object(value)?;
        self.0.read_item(&mut reader, 1)
    }
}

impl Field for OneDestination {
    type Output = DestinationInput;

    fn read(&self, value: &Value, at: &mut At<'_>) -> Option<DestinationInput> {
        self.read_at(value, at)
    }

    fn field_schema(&self) -> RefOr<Schema> {
        RefOr::Ref(Ref::from_schema_name(self.0.name))
    }

    fn field_example(&self) -> Value {
        self.0.field_example()[0].clone()
    }

    fn components(&self, out: &mut Vec<(String, RefOr<Schema>)>) {
        self.0.components(out);
    }
}

/// The rule of a field answered as one destination but taken as a list of exactly one (a
/// campaign's `destination`): a list of `0`'s items, or one such object — the form the
/// answer gives, so an answer is accepted back as it is (interface §2).
#[derive(Clone, Copy, Debug)]
pub struct OneOrList(pub Destinations);

impl Field for OneOrList {
    type Output = Vec<DestinationInput>;

    fn read(&self, value: &Value, at: &mut At<'_>) -> Option<Vec<DestinationInput>> {
        match value {
            Value::Object(_) => OneDestination(self.0).read_at(value, at).map(|d| vec![d]),
            _ => self.0.read(value, at),
        }
    }

    fn field_schema(&self) -> RefOr<Schema> {
        RefOr::T(Schema::OneOf(
            utoipa::openapi::schema::OneOfBuilder::new()
                .item(self.0.field_schema())
                .item(RefOr::<Schema>::Ref(Ref::from_schema_name(self.0.name)))
                .build(),
        ))
    }

    fn field_example(&self) -> Value {
        self.0.field_example()
    }

    fn components(&self, out: &mut Vec<(String, RefOr<Schema>)>) {
        self.0.components(out);
    }
}
