//! The one error type of the crate. Messages never hold a password or a
//! connection URL with one.

/// What went wrong with a database or a call.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Error {
    /// The database cannot be reached or opened (the driver's message,
    /// without credentials).
    #[error("cannot open the database: {0}")]
    Connect(String),
    /// The role is privileged and `allow_privileged_role` is not set.
    #[error("{0}")]
    PrivilegedRole(String),
    /// More than one statement in one call.
    #[error("one statement per call: the text after the first statement was refused")]
    MultipleStatements,
    /// The engine refused the statement as a write on a read-only database
    /// or call, or the authorizer refused what it touches.
    #[error("refused: {0}")]
    Refused(String),
    /// A write call on a database opened for reads.
    #[error("this database is read-only")]
    ReadOnly,
    /// The statement does not prepare (syntax, unknown table or column):
    /// the database's message.
    #[error("{0}")]
    Prepare(String),
    /// A parameter's value does not fit its type, or is missing.
    #[error("parameter {name}: {message}")]
    Param {
        /// The parameter's name.
        name: String,
        /// What is wrong.
        message: String,
    },
    /// `statement_timeout` stopped the statement.
    #[error("the statement ran longer than the statement timeout ({0}) and was stopped")]
    Timeout(String),
    /// The caller cancelled; the statement was stopped in the database.
    #[error("cancelled; the statement was stopped in the database")]
    Cancelled,
    /// A write affected more rows than allowed, and was rolled back.
    #[error("the statement would affect {affected} rows, more than the {max} allowed; nothing was written")]
    TooManyRows {
        /// Rows it affected before rolling back.
        affected: u64,
        /// The limit.
        max: u64,
    },
    /// A confirmed write affected a different number of rows than the user
    /// confirmed, and was rolled back.
    #[error("the statement now affects {affected} rows, not the {expected} confirmed; nothing was written")]
    CountChanged {
        /// The confirmed count.
        expected: u64,
        /// The count now.
        affected: u64,
    },
    /// Any other error of the engine while running (its message).
    #[error("{0}")]
    Execute(String),
}
