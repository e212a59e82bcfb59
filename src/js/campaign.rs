//! `getCampaign`.

use js_sys::{Object, Promise};
use wasm_bindgen::prelude::*;

use super::client::FundraisingClient;
use super::decode::decode;
use super::options::{text_argument, CallOptions};
use super::promise::promise;

#[wasm_bindgen]
impl FundraisingClient {
    /// A campaign by its short name.
    #[wasm_bindgen(js_name = getCampaign, unchecked_return_type = "Promise<Campaign>")]
    pub fn get_campaign(
        &self,
        #[wasm_bindgen(js_name = shortName, unchecked_param_type = "string")] short_name: JsValue,
        #[wasm_bindgen(unchecked_optional_param_type = "CallOptions")] options: Option<Object>,
    ) -> Promise {
        let client = self.client.clone();
        let options = CallOptions::read(options);
        promise(async move {
            let options = options?;
            let short_name = text_argument(&short_name, "shortName")?;
            let answer = client
                .campaign_response(&short_name, options.signal.as_ref())
                .await?;
            decode::<fundraising_core::model::Campaign>(&answer)
        })
    }
}
