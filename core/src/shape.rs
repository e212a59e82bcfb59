//! The shape of each wire model, derived from the type (`#[derive(Model)]`), which core's one
//! decoder ([`crate::json::Shaped`]) walks, natively and in the browser; and the TypeScript
//! declaration of each type JS sees (`#[derive(Model)]` or `#[derive(TypeScript)]`).

use crate::ServiceDate;

pub use fundraising_core_derive::{Model, Record, TypeScript};

/// What a field holds, and so how its JSON member is read.
#[derive(Debug, Clone, Copy)]
pub enum Kind {
    /// A string.
    Text,
    /// A decimal sent as text; a JSON number is accepted and kept as its text.
    DecimalText,
    /// Any number.
    Number,
    /// A whole number of 32 bits.
    Int32,
    /// A whole number (within JavaScript's safe integers).
    Int64,
    /// `true` or `false`.
    Bool,
    /// A `\/Date(ms±hhmm)\/` string.
    Date,
    /// A member whose shape the spec does not show, passed through as sent.
    Free,
    /// An open enumeration: its known values in the spec's spelling (matched
    /// case-insensitively), any other value as sent.
    Enum(fn(&str) -> Option<&'static str>),
    /// A nested model.
    Struct(&'static Shape),
    /// An array of the kind.
    List(&'static Kind),
}

/// Whether a member may be missing (absent or `null`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Presence {
    /// Missing is an error.
    Required,
    /// Missing gives the kind's default (`""`, `0`, `false`, `[]`, .NET's minimum date, ...).
    Default,
    /// Missing gives `null`.
    Optional,
}

/// One field of a model: its JS (camelCase) name, kind and presence.
#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// The name in JS, and the name matched case-insensitively on the wire.
    pub name: &'static str,
    /// What it holds.
    pub kind: Kind,
    /// Whether it may be missing.
    pub presence: Presence,
}

/// A model: its name (for messages) and fields.
#[derive(Debug, Clone, Copy)]
pub struct Shape {
    /// The type's name.
    pub name: &'static str,
    /// Its fields, in declaration order.
    pub fields: &'static [Field],
}

/// A wire model with a decode shape (`#[derive(Model)]`).
pub trait Model {
    /// The shape core's decoder walks.
    const SHAPE: &'static Shape;
}

/// The kind of a field of this type.
pub trait HasKind {
    /// How a member of this type is read.
    const KIND: Kind;
}

/// A type with a TypeScript declaration (`#[derive(Model)]`, `#[derive(TypeScript)]`, or an
/// open enumeration's union type).
pub trait Declared {
    /// The declaration, e.g. `export interface Campaign { ... }`.
    const TS: &'static str;
}

/// The seed of every `#[derive(Record)]`: a member name as its index in the record's list of
/// names (`usize::MAX` for a member the record does not have). One implementation serves every
/// record, instead of an identifier visitor per type.
pub struct FieldIndex(pub &'static [&'static str]);

impl<'de> serde::de::DeserializeSeed<'de> for FieldIndex {
    type Value = usize;

    fn deserialize<D: serde::Deserializer<'de>>(self, deserializer: D) -> Result<usize, D::Error> {
        deserializer.deserialize_identifier(self)
    }
}

impl serde::de::Visitor<'_> for FieldIndex {
    type Value = usize;

    fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("a member name")
    }

    fn visit_str<E: serde::de::Error>(self, name: &str) -> Result<usize, E> {
        Ok(self.0.iter().position(|n| *n == name).unwrap_or(usize::MAX))
    }
}

macro_rules! kinds {
    ($($ty:ty => $kind:expr),* $(,)?) => {
        $(impl HasKind for $ty { const KIND: Kind = $kind; })*
    };
}

kinds! {
    String => Kind::Text,
    f64 => Kind::Number,
    i32 => Kind::Int32,
    i64 => Kind::Int64,
    bool => Kind::Bool,
    ServiceDate => Kind::Date,
    serde_json::Value => Kind::Free,
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::{Campaign, Donation, DonationStatus, Event, FundraisingPageSummary};

    fn field(shape: &Shape, name: &str) -> Field {
        *shape
            .fields
            .iter()
            .find(|f| f.name == name)
            .unwrap_or_else(|| panic!("{} has no {name}", shape.name))
    }

    #[test]
    fn shapes_come_from_the_types() {
        let campaign = Campaign::SHAPE;
        assert_eq!(campaign.name, "Campaign");
        assert_eq!(campaign.fields.len(), 20);
        assert_eq!(field(campaign, "campaignGuid").presence, Presence::Required);
        assert_eq!(field(campaign, "title").presence, Presence::Optional);
        assert_eq!(field(campaign, "summary").presence, Presence::Default);
        assert!(matches!(field(campaign, "startDate").kind, Kind::Date));
        assert!(matches!(field(campaign, "charities").kind, Kind::Free));
        match field(campaign, "donationSummary").kind {
            Kind::Struct(s) => assert_eq!(s.name, "CampaignDonationSummary"),
            other => panic!("{other:?}"),
        }
        assert!(matches!(
            field(Donation::SHAPE, "amount").kind,
            Kind::DecimalText
        ));
        assert!(matches!(field(Donation::SHAPE, "id").kind, Kind::Int32));
        match field(Donation::SHAPE, "status").kind {
            Kind::Enum(canonical) => assert_eq!(canonical("pending"), Some("Pending")),
            other => panic!("{other:?}"),
        }
        match field(FundraisingPageSummary::SHAPE, "pageImages").kind {
            Kind::List(Kind::Text) => {}
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn declarations_speak_javascript() {
        use crate::companion::Profile;
        use crate::model::*;
        let all = [
            Campaign::TS,
            CurrencyDto::TS,
            CampaignDonationSummary::TS,
            Donation::TS,
            Event::TS,
            EventCreated::TS,
            Link::TS,
            ErrorDetail::TS,
            EventPages::TS,
            FundraisingPageSummary::TS,
            InMemoryPerson::TS,
            DonationStatus::TS,
            DonationSource::TS,
            EventType::TS,
            CampaignStatus::TS,
            PageStatus::TS,
            Profile::TS,
        ];
        for ts in all {
            for rust in ["crate::", "`None`", "[`", "`Some", "Option<", "Vec<", "::"] {
                assert!(!ts.contains(rust), "{rust} in {ts}");
            }
        }
    }

    #[test]
    fn declarations_come_from_the_types() {
        let ts = Campaign::TS;
        assert!(ts.starts_with("/** A campaign"), "{ts}");
        assert!(ts.contains("export interface Campaign {\n"), "{ts}");
        assert!(ts.contains("  campaignGuid: string;\n"), "{ts}");
        assert!(ts.contains("  title: string | null;\n"), "{ts}");
        assert!(ts.contains("  startDate: Date | null;\n"), "{ts}");
        assert!(ts.contains("  charities: unknown | null;\n"), "{ts}");
        assert!(
            ts.contains("  donationSummary: CampaignDonationSummary;\n"),
            "{ts}"
        );
        assert!(Donation::TS.contains("  amount: string;\n"));
        assert!(Donation::TS.contains("  status: DonationStatus;\n"));
        // A type JS writes: members with a default or null may be left out, but not those the
        // call refuses when missing.
        assert!(Event::TS.contains("  name: string;\n"), "{}", Event::TS);
        assert!(
            Event::TS.contains("  eventType: EventType;\n"),
            "{}",
            Event::TS
        );
        assert!(
            Event::TS.contains("  location?: string;\n"),
            "{}",
            Event::TS
        );
        assert!(
            Event::TS.contains("  startDate?: Date | null;\n"),
            "{}",
            Event::TS
        );
        assert_eq!(
            DonationStatus::TS,
            "/** Donation `status`. (other values are passed through as sent) */\n\
             export type DonationStatus = \"Accepted\" | \"Rejected\" | \"Cancelled\" | \
             \"Refunded\" | \"Pending\" | (string & {});\n"
        );
    }
}
