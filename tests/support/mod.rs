//! Test support shared by the live-cluster tests.

pub mod fake_api;
