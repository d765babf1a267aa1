//! A fast non-cryptographic 64-bit hash, stable across builds and platforms: the index's checksums,
//! the fingerprints that tell a grown file from a rewritten one, and entry-id hashes.
//!
//! Four independent lanes take 32 bytes per round (so the multiplications overlap); the result is
//! mixed with the length. It detects damage, it does not resist an adversary.

const K0: u64 = 0x9e37_79b9_7f4a_7c15;
const K1: u64 = 0xc2b2_ae3d_27d4_eb4f;
const K2: u64 = 0x1656_67b1_9e37_79f9;

/// Hash `bytes` with `seed`.
pub fn hash64(bytes: &[u8], seed: u64) -> u64 {
    let mut lanes = [seed ^ K0, seed ^ K1, seed.wrapping_add(K2), seed.rotate_left(17) ^ K2];
    let mut chunks = bytes.chunks_exact(32);
    for chunk in &mut chunks {
        for (lane, word) in lanes.iter_mut().zip(chunk.chunks_exact(8)) {
            *lane = round(*lane, u64::from_le_bytes(word.try_into().unwrap()));
        }
    }
    let mut h = lanes[0].rotate_left(1)
        ^ lanes[1].rotate_left(7)
        ^ lanes[2].rotate_left(12)
        ^ lanes[3].rotate_left(18);
    let rest = chunks.remainder();
    let mut words = rest.chunks_exact(8);
    for word in &mut words {
        h = round(h, u64::from_le_bytes(word.try_into().unwrap()));
    }
    let mut last = [0u8; 8];
    let tail = words.remainder();
    last[..tail.len()].copy_from_slice(tail);
    h = round(h, u64::from_le_bytes(last) ^ ((tail.len() as u64) << 56));
    finish(h ^ bytes.len() as u64)
}

fn round(acc: u64, word: u64) -> u64 {
    (acc ^ word.wrapping_mul(K1)).rotate_left(31).wrapping_mul(K0)
}

fn finish(mut h: u64) -> u64 {
    h ^= h >> 33;
    h = h.wrapping_mul(K1);
    h ^= h >> 29;
    h = h.wrapping_mul(K2);
    h ^ (h >> 32)
}

/// A `HashMap` with foldhash, the fast hasher the session model's maps use too (std's SipHash
/// resists flooding, which a local listing does not need).
pub type FastMap<K, V> = foldhash::HashMap<K, V>;

/// A `HashSet` with foldhash.
pub type FastSet<K> = foldhash::HashSet<K>;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn differs_on_any_change_and_length() {
        let base: Vec<u8> = (0..100u8).collect();
        let h = hash64(&base, 0);
        for i in 0..base.len() {
            let mut b = base.clone();
            b[i] ^= 1;
            assert_ne!(hash64(&b, 0), h, "byte {i}");
        }
        assert_ne!(hash64(&base[..99], 0), h);
        assert_ne!(hash64(b"", 0), hash64(b"\0", 0));
        assert_ne!(hash64(&base, 1), h);
    }

    #[test]
    fn is_stable() {
        assert_eq!(hash64(b"pitree", 0), hash64(b"pitree", 0));
    }
}
