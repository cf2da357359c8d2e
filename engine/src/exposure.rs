//! The exposure policy: which notes exist for, and may be read by, an agent surface.
