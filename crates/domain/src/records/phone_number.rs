//! Phone numbers (DIDs): provisioned to a tenant by platform and partner admins; their
//! routing settings (CNAM, recording, fax, …) edited by the tenant.

use std::collections::HashMap;

use serde::Serialize;
use serde_json::Value;
use utoipa::ToSchema;

use crate::ids::{BranchId, ExtensionId, TenantId};
use crate::list::{FilterDoc, FilterKind, ListSpec, SearchIndex, SortField};
use crate::validation::{
    Chars, Email, FLAG, FromBody, FromQuery, ID, ObjectReader, OneOf, Problems, QueryReader, Raw,
    Rule, dial, text,
};

/// A phone number: 2 to 20 dial characters, unique platform-wide.
pub const NUMBER: Chars = dial(2, 20);

/// A yes/no string flag.
pub const YES_NO: OneOf = OneOf(&["yes", "no"]);

/// A phone number, as the spec: every integer id is 0 when it does not apply.
#[derive(Clone, Debug, Serialize, ToSchema)]
#[cfg_attr(feature = "sqlx", derive(sqlx::FromRow))]
#[serde(rename_all = "camelCase")]
pub struct PhoneNumber {
    /// The number's id.
    pub id: i64,
    /// The tenant it is provisioned to.
    pub tenant_id: i64,
    /// The branch it belongs to, 0 for none.
    pub branch_id: i64,
    /// The extension that receives its text messages, 0 for none.
    pub sms_ext_id: i64,
    /// 1 when routed to something, 0 when idle.
    pub in_use: i64,
    /// The number, digits (E.164 without `+`, or with it).
    pub number: String,
    /// The caller name registered for it (CNAM), at most 15 characters.
    #[serde(rename = "registeredCNAM")]
    #[cfg_attr(feature = "sqlx", sqlx(rename = "registered_cnam"))]
    pub registered_cnam: String,
    /// A comment naming what the number is for.
    pub di_comment_name: String,
    /// `yes` to record its calls.
    pub recording: String,
    /// `yes` when it receives faxes.
    pub fax: String,
    /// Where received faxes are e-mailed.
    pub fax_email: String,
    /// `yes` to keep received faxes.
    pub fax_store: String,
    /// A prefix shown before the caller's name.
    pub name_prefix: String,
    /// Unconditional forwarding state.
    pub unconditional_status: String,
    /// `yes` to e-mail its recordings.
    pub email_recording: String,
    /// Where calls go while the platform is unreachable.
    pub store_and_forward_number: String,
    /// The tenant's name.
    pub tenant_name: String,
}

/// The settings of a phone number, as sent (all optional; a create may send them too).
#[derive(Clone, Debug, Default)]
pub struct PhoneNumberSettings {
    /// Branch (`Some(None)` clears it).
    pub branch_id: Option<Option<BranchId>>,
    /// SMS extension (`Some(None)` clears it).
    pub sms_ext_id: Option<Option<ExtensionId>>,
    /// In use.
    pub in_use: Option<i64>,
    /// CNAM.
    pub registered_cnam: Option<String>,
    /// Comment.
    pub di_comment_name: Option<String>,
    /// Recording.
    pub recording: Option<String>,
    /// Fax.
    pub fax: Option<String>,
    /// Fax e-mail.
    pub fax_email: Option<String>,
    /// Fax store.
    pub fax_store: Option<String>,
    /// Name prefix.
    pub name_prefix: Option<String>,
    /// Unconditional forwarding state.
    pub unconditional_status: Option<String>,
    /// E-mail recordings.
    pub email_recording: Option<String>,
    /// Store-and-forward number.
    pub store_and_forward_number: Option<String>,
}

/// An e-mail address or nothing.
#[derive(Clone, Copy, Debug)]
struct OptionalEmail;

impl Rule for OptionalEmail {
    type Output = String;
    fn check(&self, raw: Raw<'_>) -> Result<String, String> {
        match raw {
            Raw::Json(Value::String(s)) if s.is_empty() => Ok(String::new()),
            _ => Email.check(raw),
        }
    }
}

fn read_settings(r: &mut ObjectReader<'_>) -> Option<PhoneNumberSettings> {
    let branch = r.nullable("branchId", &ID);
    let sms = r.nullable("smsExtId", &ID);
    let in_use = r.optional("inUse", &FLAG);
    let cnam = r.optional("registeredCNAM", &text(0, 15));
    let comment = r.optional("diCommentName", &text(0, 255));
    let recording = r.optional("recording", &YES_NO);
    let fax = r.optional("fax", &YES_NO);
    let fax_email = r.optional("faxEmail", &OptionalEmail);
    let fax_store = r.optional("faxStore", &YES_NO);
    let prefix = r.optional("namePrefix", &text(0, 32));
    let unconditional = r.optional("unconditionalStatus", &text(0, 32));
    let email_recording = r.optional("emailRecording", &YES_NO);
    let forward = r.optional("storeAndForwardNumber", &dial(0, 20));
    Some(PhoneNumberSettings {
        branch_id: branch.ok()?.map(|b| b.map(BranchId)),
        sms_ext_id: sms.ok()?.map(|e| e.map(ExtensionId)),
        in_use: in_use.ok()?,
        registered_cnam: cnam.ok()?,
        di_comment_name: comment.ok()?,
        recording: recording.ok()?,
        fax: fax.ok()?,
        fax_email: fax_email.ok()?,
        fax_store: fax_store.ok()?,
        name_prefix: prefix.ok()?,
        unconditional_status: unconditional.ok()?,
        email_recording: email_recording.ok()?,
        store_and_forward_number: forward.ok()?,
    })
}

/// The body of `POST /v2/admin/phone-numbers/` (platform and partner admins).
#[derive(Clone, Debug)]
pub struct CreatePhoneNumber {
    /// The tenant it is provisioned to.
    pub tenant_id: TenantId,
    /// The number.
    pub number: String,
    /// Its settings.
    pub settings: PhoneNumberSettings,
}

/// The body of `PATCH /v2/admin/phone-numbers/{id}`.
#[derive(Clone, Debug)]
pub struct UpdatePhoneNumber(pub PhoneNumberSettings);

impl FromBody for CreatePhoneNumber {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let fields = ObjectReader::body(body, &mut problems).map(|mut r| {
            (
                r.required("tenantId", &ID),
                r.required("number", &NUMBER),
                read_settings(&mut r),
            )
        });
        problems.finish(|| {
            let (tenant, number, settings) = fields?;
            Some(CreatePhoneNumber {
                tenant_id: TenantId(tenant?),
                number: number?,
                settings: settings?,
            })
        })
    }
}

impl FromBody for UpdatePhoneNumber {
    fn from_body(body: &Value) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        for fixed in ["tenantId", "number"] {
            if body.get(fixed).is_some() {
                problems.add(
                    crate::Location::Body,
                    fixed,
                    "cannot be changed: release the number and provision it again",
                );
            }
        }
        let settings =
            ObjectReader::body(body, &mut problems).and_then(|mut r| read_settings(&mut r));
        problems.finish(|| settings.map(UpdatePhoneNumber))
    }
}

/// The phone-number body, for the API document.
#[derive(Clone, Debug, ToSchema)]
#[schema(rename_all = "camelCase")]
pub struct PhoneNumberBody {
    /// The tenant (create only).
    #[schema(nullable = false, minimum = 1)]
    pub tenant_id: Option<i64>,
    /// The number, 2 to 20 dial characters (create only).
    #[schema(
        nullable = false,
        min_length = 2,
        max_length = 20,
        pattern = "^[0-9*#+]+$"
    )]
    pub number: Option<String>,
    /// The branch, of the tenant, or null.
    #[schema(minimum = 1)]
    pub branch_id: Option<Option<i64>>,
    /// The extension receiving its texts, of the tenant, or null.
    #[schema(minimum = 1)]
    pub sms_ext_id: Option<Option<i64>>,
    /// 1 in use, 0 idle.
    #[schema(nullable = false, minimum = 0, maximum = 1)]
    pub in_use: Option<i64>,
    /// Caller name (CNAM), at most 15 characters.
    #[schema(nullable = false, max_length = 15, rename = "registeredCNAM")]
    pub registered_cnam: Option<String>,
    /// A comment naming what it is for.
    #[schema(nullable = false, max_length = 255)]
    pub di_comment_name: Option<String>,
    /// `yes` or `no`.
    #[schema(nullable = false, pattern = "^(yes|no)$")]
    pub recording: Option<String>,
    /// `yes` or `no`.
    #[schema(nullable = false, pattern = "^(yes|no)$")]
    pub fax: Option<String>,
    /// An e-mail address, or empty.
    #[schema(nullable = false, max_length = 254)]
    pub fax_email: Option<String>,
    /// `yes` or `no`.
    #[schema(nullable = false, pattern = "^(yes|no)$")]
    pub fax_store: Option<String>,
    /// A prefix shown before the caller's name.
    #[schema(nullable = false, max_length = 32)]
    pub name_prefix: Option<String>,
    /// Unconditional forwarding state.
    #[schema(nullable = false, max_length = 32)]
    pub unconditional_status: Option<String>,
    /// `yes` or `no`.
    #[schema(nullable = false, pattern = "^(yes|no)$")]
    pub email_recording: Option<String>,
    /// Dial characters, or empty.
    #[schema(nullable = false, max_length = 20, pattern = "^[0-9*#+]*$")]
    pub store_and_forward_number: Option<String>,
}

documented_as!(PhoneNumberBody => CreatePhoneNumber, UpdatePhoneNumber);

/// Filters of the phone-number list (CONTRACT §6).
#[derive(Clone, Debug, Default)]
pub struct PhoneNumberFilter {
    /// Only this tenant's numbers.
    pub tenant_id: Option<TenantId>,
    /// Only this branch's numbers.
    pub branch_id: Option<BranchId>,
    /// Numbers containing these digits.
    pub number: Option<String>,
    /// 1: fax numbers; 0: the others.
    pub fax: Option<i64>,
    /// 1: in use; 0: idle.
    pub in_use: Option<i64>,
}

impl FromQuery for PhoneNumberFilter {
    fn from_query(params: &HashMap<String, String>) -> Result<Self, Problems> {
        let mut problems = Problems::new();
        let mut q = QueryReader::new(params, &mut problems);
        let tenant_id = q.optional("tenantId", &ID).map(TenantId);
        let branch_id = q.optional("branchId", &ID).map(BranchId);
        let number = q.optional("number", &text(1, 11));
        let fax = q.optional("fax", &FLAG);
        let in_use = q.optional("inUse", &FLAG);
        problems.finish(|| {
            Some(PhoneNumberFilter {
                tenant_id,
                branch_id,
                number,
                fax,
                in_use,
            })
        })
    }
}

/// Sorting and search of the phone-number list: `query` matches the number, the comment
/// name and the CNAM.
pub const LIST: ListSpec = ListSpec {
    sort_fields: &[
        SortField {
            name: "id",
            column: "p.id",
        },
        SortField {
            name: "number",
            column: "p.number",
        },
        SortField {
            name: "diCommentName",
            column: "p.di_comment_name",
        },
        SortField {
            name: "registeredCNAM",
            column: "p.registered_cnam",
        },
        SortField {
            name: "inUse",
            column: "p.in_use",
        },
        SortField {
            name: "tenantId",
            column: "p.tenant_id",
        },
        SortField {
            name: "branchId",
            column: "p.branch_id",
        },
    ],
    search_columns: &["p.number", "p.di_comment_name", "p.registered_cnam"],
    search_index: Some(SearchIndex {
        table: "phone_numbers_search",
        id_column: "p.id",
    }),
};

impl crate::list::ListFilter for PhoneNumberFilter {
    const SPEC: &'static ListSpec = &LIST;
    const PER_PAGE_ALIASES: &'static [&'static str] = &["resultsPerPage"];
    const FILTERS: &'static [FilterDoc] = &[
        FilterDoc {
            name: "tenantId",
            description: "Only this tenant's numbers.",
            kind: FilterKind::Id,
        },
        FilterDoc {
            name: "branchId",
            description: "Only this branch's numbers.",
            kind: FilterKind::Id,
        },
        FilterDoc {
            name: "number",
            description: "Numbers containing these characters.",
            kind: FilterKind::Text(11),
        },
        FilterDoc {
            name: "fax",
            description: "1 fax numbers, 0 the others.",
            kind: FilterKind::Int(0, 1),
        },
        FilterDoc {
            name: "inUse",
            description: "1 in use, 0 idle.",
            kind: FilterKind::Int(0, 1),
        },
    ];
}
