pub(crate) mod listen;
