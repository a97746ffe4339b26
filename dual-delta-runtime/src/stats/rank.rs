//! Ranking. (placeholder: being written)
