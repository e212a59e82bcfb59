//! The demo data written on first start.

use fundraising_core::model::{
    Campaign, CampaignDonationSummary, CampaignStatus, CurrencyDto, Donation, DonationSource,
    DonationStatus, Event, EventType, FundraisingPageSummary, InMemoryPerson, PageStatus,
};
use fundraising_core::ServiceDate;
use rusqlite::{params, Transaction};
use serde_json::json;

use crate::error::Result;

/// Short name of the seeded campaign, open for giving until [`DEMO_CAMPAIGN_END_MS`].
pub const DEMO_CAMPAIGN: &str = "demo-campaign";
/// End of the demo campaign's giving window: 31 December 2035.
pub const DEMO_CAMPAIGN_END_MS: i64 = 2_082_672_000_000;
/// Short name of a campaign whose end date has passed (30 June 2025).
pub const ENDED_CAMPAIGN: &str = "demo-campaign-ended";
/// Short name of a campaign that has not started yet (it opens on 1 June 2035).
pub const UPCOMING_CAMPAIGN: &str = "demo-campaign-upcoming";
/// Short name of a campaign within its dates whose status is not `Active` (`Closed`).
pub const CLOSED_CAMPAIGN: &str = "demo-campaign-closed";
/// Third-party reference of the donation on the demo user's page (message not shared).
pub const DEMO_REF_OWNED: &str = "demo-ref-1";
/// Third-party reference of the donation with a shared message and an image.
pub const DEMO_REF_SHARED: &str = "demo-ref-2";
/// Owner of the page `demo-ref-1` was given on: the default demo user.
pub const DEMO_OWNER_EMAIL: &str = "demo@example.org";
/// Id of the seeded event.
pub const DEMO_EVENT_ID: i32 = 1001;
/// Number of fundraising pages of the seeded event.
pub const DEMO_EVENT_PAGES: i32 = 250;

const CAMPAIGN_GUID: &str = "2f0c5a1e-6b7d-4c3e-9a55-0d1e2f3a4b5c";
const DEMO_EVENT_NAME: &str = "Demo City Marathon";
// 2025-04-04T10:13:27.553Z and neighbours.
const BASE_MS: i64 = 1_743_761_607_553;
const DAY_MS: i64 = 86_400_000;

/// Inserts the seed inside the caller's transaction.
pub fn insert(tx: &Transaction<'_>) -> Result<()> {
    let pages = event_pages();
    tx.execute(
        "INSERT INTO events (id, app_id, created_ms, body) VALUES (?1, 'demo-app', ?2, ?3)",
        params![
            DEMO_EVENT_ID,
            BASE_MS,
            serde_json::to_string(&demo_event())?
        ],
    )?;
    for page in &pages {
        tx.execute(
            "INSERT INTO pages (event_id, page_id, raised, body) VALUES (?1, ?2, ?3, ?4)",
            params![
                DEMO_EVENT_ID,
                page.page_id,
                page.raised_amount,
                serde_json::to_string(page)?
            ],
        )?;
    }
    let campaign = demo_campaign(&pages);
    let windows = giving_window_campaigns(&campaign);
    for campaign in std::iter::once(&campaign).chain(&windows) {
        tx.execute(
            "INSERT INTO campaigns (short_name, body) VALUES (?1, ?2)",
            params![campaign.short_name, serde_json::to_string(campaign)?],
        )?;
    }
    for (donation, owner, share) in donations() {
        tx.execute(
            "INSERT INTO donations (reference, owner_email, share_message, body) VALUES (?1, ?2, ?3, ?4)",
            params![
                donation.third_party_reference,
                owner,
                share,
                serde_json::to_string(&donation)?
            ],
        )?;
    }
    Ok(())
}

fn demo_event() -> Event {
    model!(Event {
        name: DEMO_EVENT_NAME.into(),
        description: "A seeded event with 250 fundraising pages.".into(),
        id: None,
        completion_date: Some(ServiceDate::from_millis(BASE_MS + 60 * DAY_MS)),
        expiry_date: Some(ServiceDate::from_millis(BASE_MS + 90 * DAY_MS)),
        start_date: Some(ServiceDate::from_millis(BASE_MS + 59 * DAY_MS)),
        event_type: EventType::RunningMarathons,
        location: "London".into(),
        charity_id: Some(2357),
        error_message: None,
    })
}

/// Whether seeded page number `i` (1-based) belongs to the demo campaign.
fn in_campaign(i: i64) -> bool {
    i % 20 == 0
}

fn event_pages() -> Vec<FundraisingPageSummary> {
    (1..=i64::from(DEMO_EVENT_PAGES))
        .map(|i| {
            // Multiples of 0.25 add up exactly in binary floating point.
            let online = ((i * 37) % 400) as f64 * 1.25;
            let offline = if i % 7 == 0 { 20.0 } else { 0.0 };
            let in_memory = (i % 10 == 3).then(|| {
                model!(InMemoryPerson {
                    first_name: format!("Pat{i}"),
                    last_name: "Remembered".into(),
                    person_id: 90_000 + i,
                    relation_ship: None,
                    // Born between 1938 and 1960: negative milliseconds.
                    date_of_birth: ServiceDate::from_millis(-1_000_000_000_000 + i * 3_000_000_000),
                    date_of_death: ServiceDate::from_millis(BASE_MS - i * 10 * DAY_MS),
                })
            });
            model!(FundraisingPageSummary {
                campaign_guid: in_campaign(i).then(|| CAMPAIGN_GUID.to_owned()),
                company_appeal_id: 0,
                created_date: Some(if i % 50 == 1 {
                    // Pages imported from the old platform carry .NET's minimum date.
                    ServiceDate::from_millis(fundraising_core::date::DOTNET_MIN_MILLIS)
                } else {
                    ServiceDate::from_millis(BASE_MS - (300 - i) * DAY_MS)
                }),
                currency_code: Some("GBP".into()),
                currency_symbol: Some("£".into()),
                design_id: 1 + i % 3,
                domain: "www.example.org".into(),
                event_id: DEMO_EVENT_ID,
                event_name: DEMO_EVENT_NAME.into(),
                gift_aid_plus_supplement: online * 0.25,
                images: Some(json!([])),
                in_memory_person: in_memory,
                legacy_id: None,
                offline_donations: offline,
                page_guid: Some(format!("6d1b6c1e-0000-4000-8000-{i:012}")),
                page_id: 200_000 + i,
                page_images: vec![format!("https://images.example.org/pages/{i}.jpg")],
                page_owner: None,
                page_owner_guid: None,
                page_short_name: format!("demo-page-{i}"),
                page_status: PageStatus::Active,
                page_title: format!("Running the Demo City Marathon #{i}"),
                raised_amount: online + offline,
                target_amount: 500.0 + (i % 4) as f64 * 250.0,
                total_raised_online: online,
                updated_date: (i % 25 != 0).then(|| ServiceDate::from_millis(BASE_MS - i * DAY_MS)),
                sms_code: format!("DEMO{i:03}"),
                charity_id: 2357,
            })
        })
        .collect()
}

/// The campaign; its fundraiser totals are those of the seeded pages that belong to it, and
/// `TotalAmount = DirectDonationAmount + FundraiserRaisedAmount + offlineAmount`,
/// `TotalNumberOfDonations = NumberOfDirectDonations + NumberOfFundraiserDonations`,
/// `TotalGiftAid = DirectDonationGiftAid + gift aid of the fundraiser donations`.
fn demo_campaign(pages: &[FundraisingPageSummary]) -> Campaign {
    let campaign_pages: Vec<&FundraisingPageSummary> = pages
        .iter()
        .filter(|p| p.campaign_guid.as_deref() == Some(CAMPAIGN_GUID))
        .collect();
    let fundraiser_raised: f64 = campaign_pages.iter().map(|p| p.raised_amount).sum();
    let fundraiser_gift_aid: f64 = campaign_pages
        .iter()
        .map(|p| p.gift_aid_plus_supplement)
        .sum();
    let fundraiser_donations = campaign_pages.len() as i64 * 3;
    let direct_amount = 1_250.0;
    let direct_gift_aid = 187.5;
    let direct_count = 42;
    let offline = 250.0;
    model!(Campaign {
        campaign_guid: CAMPAIGN_GUID.into(),
        short_name: DEMO_CAMPAIGN.into(),
        title: Some("Demo Campaign: Clean Water for Everyone".into()),
        summary: "Help us bring clean water to 10,000 people.".into(),
        story:
            "Every pound raised in this demo campaign goes (in the sandbox) to wells and filters."
                .into(),
        start_date: Some(ServiceDate::from_millis(BASE_MS - 120 * DAY_MS)),
        end_date: Some(ServiceDate::from_millis(DEMO_CAMPAIGN_END_MS)),
        branding_guid: None,
        offline_amount: offline,
        offline_amount_updated: None,
        currency: model!(CurrencyDto {
            currency_code: "GBP".into(),
            currency_symbol: "£".into(),
        }),
        status: CampaignStatus::Active,
        landing_page_url: None,
        event_registration_link: None,
        thank_you_message: Some("Thank you for supporting clean water!".into()),
        target_amount: 10_000.0,
        charities: Some(json!([{ "Id": 2357, "Name": "Water For All" }])),
        fundraising: None,
        donation_summary: model!(CampaignDonationSummary {
            direct_donation_amount: direct_amount,
            direct_donation_gift_aid: direct_gift_aid,
            fundraiser_raised_amount: fundraiser_raised,
            number_of_direct_donations: direct_count,
            number_of_fundraiser_donations: fundraiser_donations,
            offline_amount_updated: None,
            total_amount: direct_amount + fundraiser_raised + offline,
            total_gift_aid: direct_gift_aid + fundraiser_gift_aid,
            total_number_of_donations: direct_count + fundraiser_donations,
            offline_amount: offline,
        }),
        error_message: None,
    })
}

/// A campaign in each state of a giving window besides open, shaped like the demo campaign:
/// one that has ended, one that has not started, and one within its dates whose status is
/// not `Active`.
fn giving_window_campaigns(demo: &Campaign) -> Vec<Campaign> {
    let with =
        |short_name: &str, title: &str, start_ms: i64, end_ms: i64, status: CampaignStatus| {
            let mut campaign = demo.clone();
            campaign.short_name = short_name.into();
            campaign.title = Some(title.into());
            campaign.start_date = Some(ServiceDate::from_millis(start_ms));
            campaign.end_date = Some(ServiceDate::from_millis(end_ms));
            campaign.status = status;
            campaign
        };
    vec![
        // 30 June 2025.
        with(
            ENDED_CAMPAIGN,
            "Spring Appeal 2025",
            BASE_MS - 120 * DAY_MS,
            1_751_241_600_000,
            CampaignStatus::Active,
        ),
        // 1 June 2035 to 31 March 2036.
        with(
            UPCOMING_CAMPAIGN,
            "Summer Swim 2035",
            2_064_268_800_000,
            2_090_534_400_000,
            CampaignStatus::Active,
        ),
        with(
            CLOSED_CAMPAIGN,
            "Winter Shelter Appeal",
            BASE_MS - 120 * DAY_MS,
            DEMO_CAMPAIGN_END_MS,
            CampaignStatus::from_wire("Closed"),
        ),
    ]
}

fn donations() -> Vec<(Donation, &'static str, bool)> {
    let owned = model!(Donation {
        id: 5001,
        donation_ref: Some("DR-5001".into()),
        image: None,
        has_image: Some(false),
        donation_date: ServiceDate::from_millis(BASE_MS),
        donor_display_name: "The Smith family".into(),
        message: Some("Good luck on race day, we are all cheering for you!".into()),
        estimated_tax_reclaim: 6.25,
        amount: "25.00".into(),
        donor_real_name: Some("Alex Smith".into()),
        third_party_reference: DEMO_REF_OWNED.into(),
        status: DonationStatus::Accepted,
        source: DonationSource::DirectDonations,
        currency_code: "GBP".into(),
        donor_local_amount: "25.00".into(),
        donor_local_currency_code: "GBP".into(),
        error_message: None,
    });
    let shared = model!(Donation {
        id: 5002,
        donation_ref: Some("DR-5002".into()),
        image: Some("https://images.example.org/donations/heart.png".into()),
        has_image: Some(true),
        donation_date: ServiceDate::from_millis(BASE_MS + 3_600_000),
        donor_display_name: "Sam".into(),
        message: Some("Go go go! Proud of you.".into()),
        estimated_tax_reclaim: 2.5,
        amount: "10.00".into(),
        donor_real_name: Some("Sam Giver".into()),
        third_party_reference: DEMO_REF_SHARED.into(),
        status: DonationStatus::Accepted,
        source: DonationSource::SponsorshipDonations,
        currency_code: "GBP".into(),
        donor_local_amount: "11.80".into(),
        donor_local_currency_code: "EUR".into(),
        error_message: None,
    });
    vec![
        (owned, DEMO_OWNER_EMAIL, false),
        (shared, "fundraiser@example.org", true),
    ]
}
