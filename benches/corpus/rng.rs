//! The corpus's random numbers: seeded splitmix64 streams (one per purpose and per session, so
//! sessions can be written in parallel and still come out the same), and the 8-hex-digit entry ids
//! pi draws, unique within a session.

use super::*;

#[derive(Clone)]
pub(crate) struct Rng(u64);

impl Rng {
    pub(crate) fn stream(stream: u64) -> Self {
        let mut rng = Self(SEED ^ stream.wrapping_mul(0xD1B5_4A32_D192_ED03));
        rng.next();
        rng
    }

    /// splitmix64.
    pub(crate) fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub(crate) fn below(&mut self, n: u64) -> u64 {
        ((u128::from(self.next()) * u128::from(n)) >> 64) as u64
    }

    /// Uniform in `lo..=hi`.
    pub(crate) fn range(&mut self, lo: u64, hi: u64) -> u64 {
        lo + self.below(hi - lo + 1)
    }

    /// Log-uniform in `lo..=hi`: as many payloads between 1× and 2× `lo` as between `hi / 2` and `hi`.
    pub(crate) fn log_range(&mut self, lo: u64, hi: u64) -> u64 {
        let (lo, hi) = ((lo as f64).ln(), (hi as f64).ln());
        (lo + self.unit() * (hi - lo)).exp() as u64
    }

    pub(crate) fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }

    pub(crate) fn chance(&mut self, p: f64) -> bool {
        self.unit() < p
    }

    pub(crate) fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// Standard normal (Box–Muller).
    pub(crate) fn normal(&mut self) -> f64 {
        let u = self.unit().max(1e-12);
        (-2.0 * u.ln()).sqrt() * (std::f64::consts::TAU * self.unit()).cos()
    }

    pub(crate) fn bytes<const N: usize>(&mut self) -> [u8; N] {
        std::array::from_fn(|_| self.next() as u8)
    }

    /// `count` distinct indices from `candidates` (partial Fisher–Yates).
    pub(crate) fn sample(&mut self, mut candidates: Vec<usize>, count: usize) -> Vec<usize> {
        let count = count.min(candidates.len());
        for i in 0..count {
            let j = i + self.below((candidates.len() - i) as u64) as usize;
            candidates.swap(i, j);
        }
        candidates.truncate(count);
        candidates
    }
}

/// Entry ids: 8 hex digits, unique in a session by construction (a bijection of a counter), and
/// never one of `taken` (the ids already in a file that is appended to).
pub(crate) struct Ids {
    pub(crate) salt: u32,
    pub(crate) next: u32,
    pub(crate) taken: HashSet<u32>,
}

impl Ids {
    pub(crate) fn next(&mut self) -> u32 {
        loop {
            let id = fmix32(self.next.wrapping_add(self.salt));
            self.next = self.next.wrapping_add(1);
            if !self.taken.contains(&id) {
                return id;
            }
        }
    }
}

/// murmur3's finalizer: a bijection on u32.
pub(crate) fn fmix32(mut h: u32) -> u32 {
    h ^= h >> 16;
    h = h.wrapping_mul(0x85eb_ca6b);
    h ^= h >> 13;
    h = h.wrapping_mul(0xc2b2_ae35);
    h ^ (h >> 16)
}
