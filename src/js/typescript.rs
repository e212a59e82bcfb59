//! The TypeScript declarations of every model, enum and option, appended to the package's
//! `.d.ts`. Each comes from its type (`#[derive(Model)]`, `#[derive(TypeScript)]`, core's
//! `string_enum!`), never from a copy; the error's (`error.rs`) and the session state's
//! (`session.rs`) come from the crate's lists of codes and reasons.

use fundraising_core::shape::Declared;
use wasm_bindgen::prelude::*;

#[cfg(feature = "__operation")]
use fundraising_core::model::*;

#[cfg(any(
    feature = "campaign",
    feature = "donation",
    feature = "events",
    feature = "signin"
))]
use super::options::CallOptions;
use super::options::ClientOptions;
#[cfg(feature = "donation")]
use super::options::WaitOptions;
#[cfg(feature = "pages")]
use super::options::{PageOptions, PagesOptions};
#[cfg(feature = "signin")]
use super::{options::SignInOptions, session::Session};

macro_rules! declare {
    ($($ty:ty),* $(,)?) => {
        $(
            const _: () = {
                #[wasm_bindgen(typescript_custom_section)]
                const TS: &str = <$ty as Declared>::TS;
            };
        )*
    };
}

declare!(ClientOptions);

#[cfg(any(
    feature = "campaign",
    feature = "donation",
    feature = "events",
    feature = "signin"
))]
declare!(CallOptions);

#[cfg(feature = "campaign")]
declare!(
    Campaign,
    CurrencyDto,
    CampaignDonationSummary,
    CampaignStatus
);

#[cfg(feature = "donation")]
declare!(Donation, DonationStatus, DonationSource, WaitOptions);

#[cfg(feature = "donation")]
#[wasm_bindgen(typescript_custom_section)]
/// The type of `WaitOptions.onStatus`.
const STATUS_CALLBACK: &str = "/** Called by `waitForDonation` with the donation's new status and the donation. */\nexport type StatusCallback = (status: DonationStatus, donation: Donation) => void;\n";

#[cfg(feature = "events")]
declare!(Event, EventType, EventCreated, Link, ErrorDetail);

#[cfg(feature = "pages")]
declare!(
    EventPages,
    FundraisingPageSummary,
    InMemoryPerson,
    PageStatus,
    PageOptions,
    PagesOptions
);

#[cfg(feature = "signin")]
declare!(SignInOptions, Session, fundraising_core::companion::Profile);
