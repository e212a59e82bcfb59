//! The service's string enumerations. Each keeps a value it does not know as
//! `Other(String)` instead of failing, matches known values case-insensitively and writes
//! them back in the spec's spelling.

use std::fmt;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

macro_rules! string_enum {
    (
        $(#[doc = $doc:literal])*
        $name:ident {
            $( $(#[$vmeta:meta])* $variant:ident => $wire:literal ),+ $(,)?
        }
    ) => {
        $(#[doc = $doc])*
        #[derive(Debug, Clone, PartialEq, Eq, Hash)]
        #[non_exhaustive]
        pub enum $name {
            $( $(#[$vmeta])* $variant, )+
            /// A value this version does not know, kept as the service sent it.
            Other(String),
        }

        impl $name {
            /// Every value the spec lists, in its order.
            pub const KNOWN: &'static [&'static str] = &[$($wire),+];

            /// The value as the service writes it.
            pub fn as_str(&self) -> &str {
                match self {
                    $( Self::$variant => $wire, )+
                    Self::Other(other) => other,
                }
            }

            /// Maps a wire value to a variant (ASCII case-insensitive), keeping unknown values.
            pub fn from_wire(value: &str) -> Self {
                $( if value.eq_ignore_ascii_case($wire) { return Self::$variant; } )+
                Self::Other(value.to_owned())
            }

            /// The spec's spelling of a known value (ASCII case-insensitive), or `None`.
            pub fn canonical(value: &str) -> Option<&'static str> {
                Self::KNOWN.iter().copied().find(|known| known.eq_ignore_ascii_case(value))
            }

            /// True for a value the spec lists.
            pub fn is_known(&self) -> bool {
                !matches!(self, Self::Other(_))
            }
        }

        impl Default for $name {
            /// An empty unknown value: what an absent or null field decodes to.
            fn default() -> Self {
                Self::Other(String::new())
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }

        impl From<&str> for $name {
            fn from(value: &str) -> Self {
                Self::from_wire(value)
            }
        }

        impl crate::shape::HasKind for $name {
            const KIND: crate::shape::Kind = crate::shape::Kind::Enum(Self::canonical);
        }

        impl crate::shape::Declared for $name {
            const TS: &'static str = concat!(
                "/**", $($doc, " ",)* "(other values are passed through as sent) */\n",
                "export type ", stringify!($name), " = ",
                $( "\"", $wire, "\" | ", )+
                "(string & {});\n"
            );
        }

        impl Serialize for $name {
            fn serialize<S: Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }

        impl<'de> Deserialize<'de> for $name {
            fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                String::deserialize(deserializer).map(|s| Self::from_wire(&s))
            }
        }
    };
}

string_enum! {
    /// Donation `status`.
    DonationStatus {
        /// `Accepted`
        Accepted => "Accepted",
        /// `Rejected`
        Rejected => "Rejected",
        /// `Cancelled`
        Cancelled => "Cancelled",
        /// `Refunded`
        Refunded => "Refunded",
        /// `Pending`
        Pending => "Pending",
    }
}

impl DonationStatus {
    /// True for a status a donation keeps: `Accepted`, `Rejected`, `Cancelled` or `Refunded`
    /// (not `Pending`, nor a value this version does not know).
    pub fn is_final(&self) -> bool {
        matches!(
            self,
            Self::Accepted | Self::Rejected | Self::Cancelled | Self::Refunded
        )
    }
}

string_enum! {
    /// Donation `source`: where the donation came from.
    DonationSource {
        /// `DirectDonations`
        DirectDonations => "DirectDonations",
        /// `SponsorshipDonations`
        SponsorshipDonations => "SponsorshipDonations",
        /// `Ipdd`
        Ipdd => "Ipdd",
        /// `Sms`
        Sms => "Sms",
    }
}

string_enum! {
    /// Event `eventType`. The first eight show the event name on fundraising pages.
    EventType {
        /// `Running_Marathons`
        RunningMarathons => "Running_Marathons",
        /// `Treks`
        Treks => "Treks",
        /// `Walks`
        Walks => "Walks",
        /// `Cycling`
        Cycling => "Cycling",
        /// `Swimming`
        Swimming => "Swimming",
        /// `Triathlons`
        Triathlons => "Triathlons",
        /// `Parachuting_Skydives`
        ParachutingSkydives => "Parachuting_Skydives",
        /// `OtherSportingEvents`
        OtherSportingEvents => "OtherSportingEvents",
        /// `OtherCelebration`: accepted, but not visually represented on the page.
        OtherCelebration => "OtherCelebration",
    }
}

string_enum! {
    /// Campaign `status`. The spec shows only `Active`.
    CampaignStatus {
        /// `Active`
        Active => "Active",
    }
}

string_enum! {
    /// Fundraising page `pageStatus`. The spec shows only `Active`.
    PageStatus {
        /// `Active`
        Active => "Active",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn known_values_round_trip() {
        for wire in DonationStatus::KNOWN {
            let v = DonationStatus::from_wire(wire);
            assert!(v.is_known(), "{wire}");
            assert_eq!(v.as_str(), *wire);
        }
        assert_eq!(EventType::KNOWN.len(), 9);
        for wire in EventType::KNOWN {
            assert_eq!(EventType::from_wire(wire).as_str(), *wire);
        }
        assert_eq!(DonationSource::from_wire("Ipdd"), DonationSource::Ipdd);
        assert_eq!(
            EventType::from_wire("Running_Marathons"),
            EventType::RunningMarathons
        );
    }

    #[test]
    fn case_insensitive_and_unknown_kept() {
        assert_eq!(
            DonationStatus::from_wire("pending"),
            DonationStatus::Pending
        );
        assert_eq!(PageStatus::from_wire("ACTIVE"), PageStatus::Active);
        let other = CampaignStatus::from_wire("Archived");
        assert_eq!(other, CampaignStatus::Other("Archived".into()));
        assert!(!other.is_known());
        assert_eq!(serde_json::to_string(&other).unwrap(), r#""Archived""#);
    }

    #[test]
    fn final_statuses() {
        let finals: Vec<&str> = DonationStatus::KNOWN
            .iter()
            .copied()
            .filter(|s| DonationStatus::from_wire(s).is_final())
            .collect();
        assert_eq!(finals, ["Accepted", "Rejected", "Cancelled", "Refunded"]);
        assert!(!DonationStatus::from_wire("On hold").is_final());
    }

    #[test]
    fn serde_as_strings() {
        let v: DonationSource = serde_json::from_str(r#""sms""#).unwrap();
        assert_eq!(v, DonationSource::Sms);
        assert_eq!(serde_json::to_string(&v).unwrap(), r#""Sms""#);
        let u: DonationSource = serde_json::from_str(r#""Paypal""#).unwrap();
        assert_eq!(u.as_str(), "Paypal");
        assert!(serde_json::from_str::<DonationSource>("3").is_err());
        assert_eq!(EventType::default().as_str(), "");
    }
}
