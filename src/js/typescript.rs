//! The TypeScript declarations of every model, enum, option and the error, appended to the
//! package's `.d.ts`. Each comes from its type (`#[derive(Model)]`, `#[derive(TypeScript)]`,
//! core's `string_enum!`, the error's code list), never from a copy.

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

#[cfg(feature = "signin")]
#[wasm_bindgen(typescript_custom_section)]
const SESSION_CHANGE: &str = crate::auth::SESSION_CHANGE_TS;

#[wasm_bindgen(typescript_custom_section)]
const STATUS_CALLBACK: &str = super::options::STATUS_CALLBACK_TS;

#[wasm_bindgen(typescript_custom_section)]
const ERRORS: &str = crate::error::ERROR_TS;
