//! weald
