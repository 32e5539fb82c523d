pub(crate) mod bundle;
pub(crate) mod call;
pub(crate) mod check;
pub(crate) mod init;
pub(crate) mod proxy;
pub(crate) mod serve;
