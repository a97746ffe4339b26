//! The guide: chapters on using dual-delta, one Markdown file each.

#[doc = include_str!("configuration.md")]
pub mod configuration {}
