//! A small Rust app on fundraising-client, which leaves the crate's `js` feature off, as a
//! Rust app does. It declares its own global allocator (which fails to link if the crate brings
//! one) and exports one function of its own; tests/node/rust-app.test.mjs checks that its wasm
//! exports none of the npm package's JS names, and calls it against the sandbox.

use fundraising_client::{Client, ClientOptions};
use wasm_bindgen::prelude::*;

/// The app's own allocator: std's, not the npm package's.
#[global_allocator]
static ALLOCATOR: std::alloc::System = std::alloc::System;

/// The title of the demo campaign of the service at `base_url`.
#[wasm_bindgen(js_name = campaignTitle)]
pub async fn campaign_title(base_url: String) -> Result<String, JsValue> {
    let client = Client::new(ClientOptions::new("demo-app", base_url))
        .map_err(|e| JsValue::from_str(&e.to_string()))?;
    let campaign = client
        .campaign("demo-campaign")
        .await
        .map_err(|e| JsValue::from_str(&e.to_string()))?;
    Ok(campaign.title.unwrap_or_default())
}
