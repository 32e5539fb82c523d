//! SQLite (being written).
