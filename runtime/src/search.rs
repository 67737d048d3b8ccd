//! Tool search (SEMANTICS §8): `select:A,B` and keyword search with Claude Code's weights.
//! To be written.
