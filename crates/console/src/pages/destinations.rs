//! Destinations in the console: where a call goes, shown in words and picked in a form.
//! One place for every page that routes a call (a number, an IVR key, a queue's timeout,
//! a paging group's members, business hours, a campaign): the targets a person may pick
//! are read from the API's own lists (so the tenant and branch scope are the API's), and a
//! picked target is sent as the API's destination body (`{destType, id}`, or
//! `{destType: "EXTERNAL", number}`), whose refusals the API words.
//!
//! In a form, a destination named `name` is two fields: `name` (a `<select>` whose values
//! are `EXT:12`, `IVR:3`, `VOICEMAIL:12`, `EXTERNAL`, `HANGUP` or empty for none) and
//! `name-number` (the outside number, used when `EXTERNAL` is picked). The template macro
//! `destination` of `templates/destination.html` draws both.

use axum::http::Method;
use serde_json::{Value, json};

use super::{Fields, field, query, tenant_pair};
use crate::session::Person;
use crate::visit::{PageError, Visit};

/// A target a form may pick: its value in the form and its label.
pub(crate) struct Target {
    /// `EXT:12`, `IVR:3` …: the destination type and the record's id.
    pub value: String,
    /// What the person reads: `201 Front desk`.
    pub label: String,
}

/// The targets of one kind, for an `<optgroup>`.
pub(crate) struct TargetGroup {
    /// The kind in words (`Extensions`).
    pub label: &'static str,
    /// Its targets, in the order the API lists them.
    pub targets: Vec<Target>,
}

/// The kinds of record a call may be sent to: the destination type, the API list that
/// holds them, and the group's label (`VOICEMAIL` names the extension whose mailbox).
const KINDS: [(&str, &str, &str); 7] = [
    ("EXT", "/v2/admin/extensions/", "Extensions"),
    ("VOICEMAIL", "/v2/admin/extensions/", "Voicemail of"),
    ("IVR", "/v2/admin/ivrs/", "IVR menus"),
    ("QUEUE", "/v2/admin/queues/", "Queues"),
    ("PAGING_GROUP", "/v2/admin/paging-groups/", "Paging groups"),
    ("BUSINESS_HOUR", "/v2/admin/business-hours/", "Business hours"),
    ("PHARMACY_AGENT", "/v2/admin/pharmacy/agents/", "Pharmacy agents"),
];

/// Every record of the tenant acted on that the person may send a call to, grouped by
/// kind (a kind they may not list is left out, as the API leaves it out for them).
/// `only` keeps the kinds a field accepts (a campaign's destination takes four); empty
/// keeps all.
pub(crate) async fn targets(
    visit: &mut Visit,
    person: &Person,
    only: &[&str],
) -> Result<Vec<TargetGroup>, PageError> {
    let mut pairs = tenant_pair(person);
    pairs.push(("paginated", "0".to_owned()));
    let mut groups = Vec::new();
    let mut extensions: Option<Vec<Value>> = None;
    for (dest_type, endpoint, label) in KINDS {
        if !only.is_empty() && !only.contains(&dest_type) {
            continue;
        }
        let records = match (endpoint, &extensions) {
            ("/v2/admin/extensions/", Some(cached)) => cached.clone(),
            _ => {
                let answer = visit
                    .call(
                        Method::GET,
                        &format!("{endpoint}?{}", query(&pairs)),
                        None,
                    )
                    .await?;
                if !answer.status.is_success() {
                    continue;
                }
                let records = super::records(&answer.json()).to_vec();
                if endpoint == "/v2/admin/extensions/" {
                    extensions = Some(records.clone());
                }
                records
            }
        };
        let targets = records
            .iter()
            .filter_map(|record| {
                let id = record["id"].as_i64()?;
                Some(Target {
                    value: format!("{dest_type}:{id}"),
                    label: label_of(record),
                })
            })
            .collect::<Vec<_>>();
        if !targets.is_empty() {
            groups.push(TargetGroup { label, targets });
        }
    }
    Ok(groups)
}

/// A record as a pick list shows it: its number, then its name.
fn label_of(record: &Value) -> String {
    let parts = [record["number"].as_str(), record["name"].as_str()];
    let label = parts
        .into_iter()
        .flatten()
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" ");
    if label.is_empty() {
        format!("#{}", record["id"])
    } else {
        label
    }
}

/// A destination as a form holds it: the picked value and the outside number typed.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub(crate) struct Picked {
    /// `EXT:12`, `EXTERNAL`, `HANGUP`, or empty for none.
    pub value: String,
    /// The outside number, for `EXTERNAL`.
    pub number: String,
}

impl Picked {
    /// The destination an API answer holds (`null`: none).
    pub fn of_answer(destination: &Value) -> Picked {
        let dest_type = destination["destType"].as_str().unwrap_or_default();
        match dest_type {
            "" => Picked::default(),
            "EXTERNAL" => Picked {
                value: "EXTERNAL".to_owned(),
                number: destination["number"]
                    .as_str()
                    .unwrap_or_default()
                    .to_owned(),
            },
            "HANGUP" => Picked {
                value: "HANGUP".to_owned(),
                number: String::new(),
            },
            _ => Picked {
                value: format!(
                    "{dest_type}:{}",
                    destination["id"].as_i64().unwrap_or_default()
                ),
                number: String::new(),
            },
        }
    }

    /// The destination the form field `name` (and `name-number`) holds.
    pub fn of_form(fields: &Fields, name: &str) -> Picked {
        Picked {
            value: field(fields, name).trim().to_owned(),
            number: field(fields, &format!("{name}-number")).trim().to_owned(),
        }
    }

    /// The API's destination body, or `None` when nothing is picked. A value that is no
    /// `TYPE:id` is sent as it reads, for the API to refuse in its own words.
    pub fn body(&self) -> Option<Value> {
        match self.value.as_str() {
            "" => None,
            "EXTERNAL" => Some(json!({"destType": "EXTERNAL", "id": 0, "number": self.number})),
            "HANGUP" => Some(json!({"destType": "HANGUP", "id": 0})),
            value => {
                let (dest_type, id) = value.split_once(':').unwrap_or((value, ""));
                let id = id.parse::<i64>().map_or_else(|_| json!(id), |id| json!(id));
                Some(json!({"destType": dest_type, "id": id}))
            }
        }
    }
}

/// A resolved destination in words: `Extension 201 Front desk`, `External number
/// 5551234`, `routes nowhere` for none.
pub(crate) fn in_words(destination: &Value) -> String {
    if destination.is_null() {
        return "routes nowhere".to_owned();
    }
    let kind = match destination["destType"].as_str().unwrap_or_default() {
        "EXT" => "Extension",
        "IVR" => "IVR menu",
        "PAGING_GROUP" => "Paging group",
        "VOICEMAIL" => "Voicemail of",
        "EXTERNAL" => "External number",
        "HANGUP" => "Hang up",
        "QUEUE" => "Queue",
        "BUSINESS_HOUR" => "Business hours",
        "PHARMACY_AGENT" => "Pharmacy agent",
        other => other,
    };
    [
        Some(kind),
        destination["number"].as_str(),
        destination["name"].as_str(),
    ]
    .into_iter()
    .flatten()
    .filter(|part| !part.is_empty())
    .collect::<Vec<_>>()
    .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_picked_destination_is_sent_as_the_api_reads_it() {
        let fields: Fields = [("to", "IVR:3"), ("to-number", "")]
            .into_iter()
            .map(|(k, v)| (k.to_owned(), v.to_owned()))
            .collect();
        let picked = Picked::of_form(&fields, "to");
        assert_eq!(picked.body(), Some(json!({"destType": "IVR", "id": 3})));
        let outside = Picked {
            value: "EXTERNAL".to_owned(),
            number: "+15551234".to_owned(),
        };
        assert_eq!(
            outside.body(),
            Some(json!({"destType": "EXTERNAL", "id": 0, "number": "+15551234"}))
        );
        assert_eq!(Picked::default().body(), None);
        // What is no `TYPE:id` goes to the API as it reads, to be refused there.
        let odd = Picked {
            value: "EXT:twelve".to_owned(),
            number: String::new(),
        };
        assert_eq!(odd.body(), Some(json!({"destType": "EXT", "id": "twelve"})));
    }

    #[test]
    fn an_answered_destination_is_picked_again_unchanged() {
        for answer in [
            json!({"destType": "QUEUE", "id": 7, "name": "Pharmacist", "number": "600"}),
            json!({"destType": "EXTERNAL", "id": 0, "number": "5551234"}),
            json!({"destType": "HANGUP", "id": 0}),
        ] {
            let picked = Picked::of_answer(&answer);
            let body = picked.body().expect("a destination");
            assert_eq!(body["destType"], answer["destType"]);
            assert_eq!(body["id"], answer["id"]);
        }
        assert_eq!(Picked::of_answer(&Value::Null), Picked::default());
    }

    #[test]
    fn a_destination_reads_in_words() {
        let answer = json!({"destType": "BUSINESS_HOUR", "id": 2, "name": "Store hours"});
        assert_eq!(in_words(&answer), "Business hours Store hours");
        assert_eq!(in_words(&Value::Null), "routes nowhere");
    }
}
