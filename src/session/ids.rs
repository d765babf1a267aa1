//! Entry ids to entry positions without a copy of each id: every id sits end to end in one
//! buffer, and the hash table holds only positions, which a lookup compares through that buffer.
//! For 100,000 entries that is two allocations instead of 100,000, and about half the memory of
//! a map keyed by owned strings.

use std::hash::BuildHasher;

use hashbrown::HashTable;

/// Index of an entry in [`crate::session::parse::ParsedFile::entries`].
pub type Ix = u32;

/// Positions by id; when an id repeats, the last position wins.
#[derive(Debug, Clone, Default)]
pub struct IdIndex {
    text: String,
    /// Where each id ends in `text` (it starts where the one before ends).
    ends: Vec<usize>,
    table: HashTable<Ix>,
    hasher: foldhash::fast::FixedState,
}

impl IdIndex {
    /// The index of `ids`, the id of position `i` being the `i`-th.
    pub fn new<'a>(ids: impl ExactSizeIterator<Item = &'a str> + Clone) -> IdIndex {
        let mut text = String::with_capacity(ids.clone().map(str::len).sum());
        let mut ends = Vec::with_capacity(ids.len());
        for id in ids {
            text.push_str(id);
            ends.push(text.len());
        }
        let mut index = IdIndex { text, ends, table: HashTable::new(), hasher: Default::default() };
        index.fill_table();
        index
    }

    fn fill_table(&mut self) {
        let IdIndex { text, ends, table, hasher } = self;
        let id = |ix: Ix| id_at(text, ends, ix);
        table.reserve(ends.len(), |&ix| hasher.hash_one(id(ix)));
        for ix in 0..ends.len() as Ix {
            let key = id(ix);
            let hash = hasher.hash_one(key);
            match table.find_mut(hash, |&other| id(other) == key) {
                Some(slot) => *slot = ix,
                None => {
                    table.insert_unique(hash, ix, |&other| hasher.hash_one(id(other)));
                }
            }
        }
    }

    /// The position of the entry with `id`.
    pub fn get(&self, id: &str) -> Option<Ix> {
        let hash = self.hasher.hash_one(id);
        self.table.find(hash, |&ix| id_at(&self.text, &self.ends, ix) == id).copied()
    }

    pub fn contains(&self, id: &str) -> bool {
        self.get(id).is_some()
    }

    /// How many different ids there are.
    pub fn len(&self) -> usize {
        self.table.len()
    }

    pub fn is_empty(&self) -> bool {
        self.table.is_empty()
    }
}

fn id_at<'a>(text: &'a str, ends: &[usize], ix: Ix) -> &'a str {
    let i = ix as usize;
    let start = if i == 0 { 0 } else { ends[i - 1] };
    &text[start..ends[i]]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn finds_every_id_and_nothing_else() {
        let ids: Vec<String> = (0..5000).map(|i| format!("{:08x}", i * 7919)).collect();
        let index = IdIndex::new(ids.iter().map(String::as_str));
        for (i, id) in ids.iter().enumerate() {
            assert_eq!(index.get(id), Some(i as Ix));
        }
        assert_eq!(index.get("nope"), None);
        assert_eq!(index.get(""), None);
        assert_eq!(index.get(&ids[1][..4]), None, "a prefix is not an id");
    }

    #[test]
    fn a_repeated_id_finds_its_last_position_and_empty_ids_work() {
        let index = IdIndex::new(["a", "", "bc", "a", "é"].into_iter());
        assert_eq!(index.get("a"), Some(3));
        assert_eq!(index.get(""), Some(1));
        assert_eq!(index.get("bc"), Some(2));
        assert_eq!(index.get("é"), Some(4));
        assert_eq!(index.get("b"), None);
        assert_eq!(index.len(), 4, "four different ids");
        assert_eq!(IdIndex::default().get("a"), None);
    }
}
