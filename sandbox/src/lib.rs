//! fundraising-sandbox
