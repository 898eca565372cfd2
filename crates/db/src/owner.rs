//! Who owns a destination list: the `owner_type` of the `destinations` table, named by
//! the lists' writers ([`crate::destinations`]) and by the in-use check
//! ([`crate::in_use`]), which the writes of [`crate::crud`] run, below them all.

/// Who owns a destination list.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Owner {
    /// A paging group's members.
    PagingGroup,
    /// A business-hours record's lists.
    BusinessHour,
    /// An IVR's menu: its options (the digit in `type_src`), timeout and invalid paths.
    Ivr,
    /// A queue's timeout destination.
    Queue,
    /// A phone number's destination.
    PhoneNumber,
    /// A music-on-hold playlist.
    MusicOnHold,
    /// A call campaign's answered-call destination.
    CallCampaign,
    /// A pharmacy agent's pharmacist fallback and after-hours destination.
    PharmacyAgent,
}

impl Owner {
    /// The owner's name in the `destinations` table.
    pub fn name(self) -> &'static str {
        match self {
            Owner::PagingGroup => "paging_group",
            Owner::BusinessHour => "business_hour",
            Owner::Ivr => "ivr",
            Owner::Queue => "queue",
            Owner::PhoneNumber => "phone_number",
            Owner::MusicOnHold => "music_on_hold",
            Owner::CallCampaign => "call_campaign",
            Owner::PharmacyAgent => "pharmacy_agent",
        }
    }

    /// The owner whose rows live in `table`, so a record's own lists routing back to it
    /// do not keep it from being deleted (`in_use`).
    pub fn of_table(table: &str) -> Option<Owner> {
        match table {
            "paging_groups" => Some(Owner::PagingGroup),
            "business_hours" => Some(Owner::BusinessHour),
            "ivrs" => Some(Owner::Ivr),
            "queues" => Some(Owner::Queue),
            "phone_numbers" => Some(Owner::PhoneNumber),
            "music_on_hold" => Some(Owner::MusicOnHold),
            "pharmacy_agents" => Some(Owner::PharmacyAgent),
            _ => None,
        }
    }
}
