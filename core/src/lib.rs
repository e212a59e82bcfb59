//! Pure rules of the fundraising service.
