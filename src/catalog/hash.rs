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
    let mut hasher = Hasher64::new(seed);
    hasher.update(bytes);
    hasher.finish()
}

/// [`hash64`] of bytes that arrive in pieces: the same value as hashing them all at once.
pub struct Hasher64 {
    lanes: [u64; 4],
    /// The start of a 32-byte round not yet complete.
    pending: [u8; 32],
    pending_len: usize,
    len: u64,
}

impl Hasher64 {
    pub fn new(seed: u64) -> Hasher64 {
        Hasher64 {
            lanes: [seed ^ K0, seed ^ K1, seed.wrapping_add(K2), seed.rotate_left(17) ^ K2],
            pending: [0; 32],
            pending_len: 0,
            len: 0,
        }
    }

    pub fn update(&mut self, mut bytes: &[u8]) {
        self.len += bytes.len() as u64;
        if self.pending_len > 0 {
            let take = bytes.len().min(32 - self.pending_len);
            self.pending[self.pending_len..self.pending_len + take].copy_from_slice(&bytes[..take]);
            self.pending_len += take;
            bytes = &bytes[take..];
            if self.pending_len < 32 {
                return;
            }
            let block = self.pending;
            self.rounds(&block);
            self.pending_len = 0;
        }
        let whole = bytes.len() / 32 * 32;
        self.rounds(&bytes[..whole]);
        let rest = &bytes[whole..];
        self.pending[..rest.len()].copy_from_slice(rest);
        self.pending_len = rest.len();
    }

    /// One round per lane for each 32 bytes of `blocks` (a multiple of 32 long).
    fn rounds(&mut self, blocks: &[u8]) {
        for chunk in blocks.chunks_exact(32) {
            for (lane, word) in self.lanes.iter_mut().zip(chunk.chunks_exact(8)) {
                *lane = round(*lane, u64::from_le_bytes(word.try_into().unwrap()));
            }
        }
    }

    pub fn finish(&self) -> u64 {
        let [a, b, c, d] = self.lanes;
        let mut h = a.rotate_left(1) ^ b.rotate_left(7) ^ c.rotate_left(12) ^ d.rotate_left(18);
        let mut words = self.pending[..self.pending_len].chunks_exact(8);
        for word in &mut words {
            h = round(h, u64::from_le_bytes(word.try_into().unwrap()));
        }
        let mut last = [0u8; 8];
        let tail = words.remainder();
        last[..tail.len()].copy_from_slice(tail);
        h = round(h, u64::from_le_bytes(last) ^ ((tail.len() as u64) << 56));
        finish(h ^ self.len)
    }
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

    fn data() -> Vec<u8> {
        (0..1000u32).map(|i| (i * 7 % 251) as u8).collect()
    }

    /// The values are part of the index format: an index written by an earlier build must check.
    #[test]
    fn is_stable() {
        let pinned: [(usize, u64); 9] = [
            (0, 0xffcededad5bd3778),
            (1, 0x6b42dd77b61f3e36),
            (7, 0x2e783b2296d67d68),
            (8, 0x113b859122809361),
            (31, 0x97fe0fdcb9f72b62),
            (32, 0x5b88118861ee092d),
            (33, 0x5bbb13ff4e16be3d),
            (100, 0xc10b65393ee9cad1),
            (1000, 0x164d727e8c1f3254),
        ];
        for (len, value) in pinned {
            assert_eq!(hash64(&data()[..len], 3), value, "{len} bytes");
        }
    }

    #[test]
    fn pieces_hash_as_the_whole() {
        let data = data();
        for cuts in [vec![], vec![0], vec![1, 2, 3], vec![31, 32, 64], vec![5, 300, 301, 999], vec![33; 3]] {
            let mut hasher = Hasher64::new(3);
            let mut from = 0;
            for cut in cuts {
                hasher.update(&data[from..cut.max(from)]);
                from = cut.max(from);
            }
            hasher.update(&data[from..]);
            assert_eq!(hasher.finish(), hash64(&data, 3));
        }
    }
}
