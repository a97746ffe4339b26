//! The checksum that `summary.json` records of `deltas.csv`, and a
//! baseline file of its trials: a file cut short, edited or damaged reads
//! as such, never as a smaller comparison.

/// FNV-1a (64 bits) over `bytes`, as 16 hexadecimal digits.
pub fn checksum(bytes: &[u8]) -> String {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for &byte in bytes {
        h ^= u64::from(byte);
        h = h.wrapping_mul(0x0100_0000_01b3);
    }
    format!("{h:016x}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fnv1a_of_known_strings() {
        assert_eq!(checksum(b""), "cbf29ce484222325");
        assert_eq!(checksum(b"a"), "af63dc4c8601ec8c");
        assert_ne!(checksum(b"ab"), checksum(b"ba"));
    }
}
