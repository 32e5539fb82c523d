//! PostgreSQL (being written).
