//! Browser client.
