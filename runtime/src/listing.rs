//! The Skill tool's listing within its character budget (SEMANTICS §4.5). To be written.
