//! fundraising-companion
