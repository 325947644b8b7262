//! weald-io
