//! The TypeScript declarations of every model, enum and option, appended to the package's
//! `.d.ts`. Each comes from its type (`#[derive(Model)]`, `#[derive(TypeScript)]`, core's
//! `string_enum!`), never from a copy; the error's (`error.rs`) and the session state's
//! (`session.rs`) come from the crate's lists of codes and reasons.

use fundraising_core::model::*;
use fundraising_core::shape::Declared;
use wasm_bindgen::prelude::*;

use super::options::{CallOptions, ClientOptions, PageOptions, PagesOptions, WaitOptions};
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

declare!(
    Campaign,
    CurrencyDto,
    CampaignDonationSummary,
    Donation,
    Event,
    EventCreated,
    Link,
    ErrorDetail,
    EventPages,
    FundraisingPageSummary,
    InMemoryPerson,
    DonationStatus,
    DonationSource,
    EventType,
    CampaignStatus,
    PageStatus,
    ClientOptions,
    CallOptions,
    PageOptions,
    PagesOptions,
    WaitOptions,
);

#[cfg(feature = "signin")]
declare!(SignInOptions, Session, fundraising_core::companion::Profile);

#[wasm_bindgen(typescript_custom_section)]
const STATUS_CALLBACK: &str = super::options::STATUS_CALLBACK_TS;
