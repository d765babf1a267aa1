//! The parsed-session cache: a cached read equals a fresh read of every fixture (whole and
//! outline), and a cache file is used only for the file it was made from — not after the file
//! was shrunk, replaced or rewritten, nor when the cache file is damaged or of another format —
//! while a grown file has only its new lines read. Two writers at once, eviction by least recent
//! use, and the commands that read through it, four pitree processes at once among them.

mod common;

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use pitree::catalog::session_cache::{self, Level, SessionCache};
use pitree::session::Session;
use pitree::session::entry::Kind;
use pitree::session::parse::{ParsedFile, outline_file, parse_file};

/// A cache in a temp dir that takes files of any size.
fn cache(dir: &Path) -> SessionCache {
    SessionCache::new(dir).with_min_len(0)
}

/// Every field a fresh read gives, as the views and commands use them.
fn assert_same(cached: &ParsedFile, fresh: &ParsedFile, what: &str) {
    assert_eq!(cached.path, fresh.path, "{what}: path");
    assert_eq!(cached.header, fresh.header, "{what}: header");
    assert_eq!(cached.entries, fresh.entries, "{what}: entries");
    assert_eq!(cached.damage, fresh.damage, "{what}: damage");
    assert_eq!(cached.facts, fresh.facts, "{what}: facts");
    assert_eq!(cached.leaf, fresh.leaf, "{what}: leaf");
    assert_eq!(cached.modified, fresh.modified, "{what}: modified");
    for (ix, e) in fresh.entries.iter().enumerate() {
        assert_eq!(cached.ids.get(&e.id), fresh.ids.get(&e.id), "{what}: id {} at {ix}", e.id);
    }
}

/// A copy of the fixture named `name` (anywhere under tests/fixtures) in `dir`.
fn copy_fixture(name: &str, dir: &Path) -> PathBuf {
    let from = common::fixtures::fixture_files()
        .into_iter()
        .find(|p| p.file_name().unwrap().to_string_lossy().starts_with(name))
        .unwrap_or_else(|| panic!("no fixture {name}"));
    let to = dir.join(from.file_name().unwrap());
    fs::copy(&from, &to).unwrap();
    to
}

fn append(path: &Path, text: &str) {
    fs::OpenOptions::new().append(true).open(path).unwrap().write_all(text.as_bytes()).unwrap();
}

/// A user message line whose parent is `parent`.
fn user_line(id: &str, parent: &str, text: &str) -> String {
    format!(
        r#"{{"type":"message","id":"{id}","parentId":"{parent}","timestamp":"2026-01-01T00:00:00.000Z","message":{{"role":"user","content":"{text}"}}}}"#
    ) + "\n"
}

fn leaf_id(file: &ParsedFile) -> String {
    file.entries[file.leaf.unwrap() as usize].id.to_string()
}

/// Read `path` whole through `cache` and keep a new parse, as `pitree show` does.
fn read_and_keep(
    cache: &SessionCache,
    path: &Path,
) -> Result<ParsedFile, pitree::session::parse::ParseError> {
    let read = session_cache::read(Some(cache), path, Level::Whole)?;
    if let Some(level) = read.keep {
        cache.put(&read.file, level).unwrap();
    }
    Ok(read.file)
}

fn cache_files(dir: &Path) -> Vec<PathBuf> {
    let Ok(items) = fs::read_dir(dir.join("sessions")) else { return Vec::new() };
    let mut files: Vec<PathBuf> = items.map(|i| i.unwrap().path()).collect();
    files.sort();
    files
}

#[test]
fn a_cached_read_equals_a_fresh_read_of_every_fixture() {
    let files = common::fixtures::fixture_files();
    assert!(files.len() > 40, "the fixtures are there");
    let mut cached_whole = 0;
    for from in files {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(from.file_name().unwrap());
        fs::copy(&from, &path).unwrap();
        let Ok(fresh) = parse_file(&path) else { continue };
        let cache = cache(&dir.path().join("cache"));
        let name = from.display().to_string();
        assert!(cache.put(&fresh, Level::Whole).unwrap(), "{name}: kept");
        let cached = cache.get(&path, Level::Whole).unwrap_or_else(|| panic!("{name}: read from the cache"));
        assert_eq!(cached.appended, 0, "{name}");
        assert_same(&cached.file, &fresh, &name);
        let outline = cache.get(&path, Level::Outline).expect("a whole parse serves an outline");
        assert_same(&outline.file, &fresh, &name);

        let fresh_outline = outline_file(&path).unwrap();
        assert!(cache.put(&fresh_outline, Level::Outline).unwrap());
        assert!(cache.get(&path, Level::Whole).is_none(), "{name}: an outline does not serve a whole read");
        assert_same(&cache.get(&path, Level::Outline).unwrap().file, &fresh_outline, &name);
        cached_whole += 1;
    }
    assert!(cached_whole > 35, "{cached_whole} fixtures cached");
}

#[test]
fn a_skeleton_read_gives_the_graph_and_context_of_a_fresh_read_of_every_fixture() {
    let mut checked = 0;
    for from in common::fixtures::fixture_files() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join(from.file_name().unwrap());
        fs::copy(&from, &path).unwrap();
        let Ok(fresh) = parse_file(&path) else { continue };
        let name = from.display().to_string();
        let cache = cache(&dir.path().join("cache"));
        assert!(cache.put(&outline_file(&path).unwrap(), Level::Outline).unwrap(), "{name}: kept");
        if fresh.header.version != 3 {
            assert!(cache.skeleton(&path).is_none(), "{name}: a legacy file's lines are not its entries");
            continue;
        }
        let skeleton = session_cache::read_skeleton(Some(&cache), &path).unwrap();
        assert_eq!(skeleton.keep, None, "{name}: a skeleton is never kept");
        let skeleton = skeleton.file;
        assert_eq!(
            (&skeleton.header, &skeleton.damage, skeleton.leaf),
            (&fresh.header, &fresh.damage, fresh.leaf)
        );
        assert_eq!(skeleton.entries.len(), fresh.entries.len(), "{name}");
        for (s, f) in skeleton.entries.iter().zip(&fresh.entries) {
            let place = (&s.id, &s.parent_id, &s.timestamp, s.time_ms, s.line, &s.span);
            assert_eq!(place, (&f.id, &f.parent_id, &f.timestamp, f.time_ms, f.line, &f.span), "{name}");
            match &f.kind {
                Kind::Message(_) => assert_eq!(s.kind, Kind::Unknown { type_name: String::new() }, "{name}"),
                kind => assert_eq!(&s.kind, kind, "{name}: every other entry whole"),
            }
        }
        let fresh = Session::from_parsed(fresh);
        let mut skeleton = Session::from_parsed(skeleton);
        let leaf = fresh.graph.leaf();
        assert_eq!(skeleton.graph.leaf(), leaf, "{name}");
        assert_eq!(skeleton.graph.name(), fresh.graph.name(), "{name}");
        let Some(leaf) = leaf else { continue };
        skeleton.fill(skeleton.graph.path_to(leaf)).unwrap();
        let messages = fresh.context_messages(Some(leaf));
        assert_eq!(skeleton.context_messages(Some(leaf)), messages, "{name}");
        for m in &messages {
            assert_eq!(skeleton.context_text(m).unwrap(), fresh.context_text(m).unwrap(), "{name}");
        }
        checked += 1;
    }
    assert!(checked > 30, "{checked} fixtures checked");
}

#[test]
fn a_grown_file_is_the_cached_read_plus_its_new_lines() {
    let dir = tempfile::tempdir().unwrap();
    let path = copy_fixture("2025-06-02T09-14-03", dir.path());
    let cache = cache(&dir.path().join("cache"));
    let before = parse_file(&path).unwrap();
    cache.put(&before, Level::Whole).unwrap();
    let line = user_line("0a0b0c0d", &leaf_id(&before), "one more");
    append(&path, &line);
    let grown = cache.get(&path, Level::Whole).expect("the cached part is still the file's");
    assert_eq!(grown.appended, line.len() as u64, "only the new line was read");
    assert_same(&grown.file, &parse_file(&path).unwrap(), "grown");
    assert_eq!(leaf_id(&grown.file), "0a0b0c0d");
}

#[test]
fn a_shrunk_replaced_or_rewritten_file_is_not_read_from_the_cache() {
    let dir = tempfile::tempdir().unwrap();
    let cache = cache(&dir.path().join("cache"));
    let path = copy_fixture("2025-06-02T09-14-03", dir.path());
    let original = fs::read(&path).unwrap();
    let keep = |cache: &SessionCache| {
        fs::write(&path, &original).unwrap();
        let file = parse_file(&path).unwrap();
        assert!(cache.put(&file, Level::Whole).unwrap());
        assert!(cache.get(&path, Level::Whole).is_some());
        file
    };

    keep(&cache);
    fs::write(&path, &original[..original.len() - 10]).unwrap();
    assert!(cache.get(&path, Level::Whole).is_none(), "shrunk");

    keep(&cache);
    let other = dir.path().join("other.jsonl");
    fs::write(&other, &original).unwrap();
    fs::rename(&other, &path).unwrap();
    assert!(
        cache.get(&path, Level::Whole).is_none(),
        "replaced by a file with the same bytes (another inode)"
    );

    // The same size and the same mtime, one byte changed near the end (a rewrite in the same
    // timestamp tick): the hash of the bytes before the end tells.
    let file = keep(&cache);
    let mut rewritten = original.clone();
    let at = rewritten.len() - 40;
    rewritten[at] = if rewritten[at] == b'x' { b'y' } else { b'x' };
    fs::File::options().write(true).open(&path).unwrap().write_all(&rewritten).unwrap();
    fs::File::options().write(true).open(&path).unwrap().set_modified(file.modified.unwrap()).unwrap();
    assert_eq!(fs::metadata(&path).unwrap().modified().unwrap(), file.modified.unwrap());
    assert!(cache.get(&path, Level::Whole).is_none(), "rewritten in place, same size and time");

    // The same size, a later time: a rewrite too, never taken for growth.
    keep(&cache);
    fs::File::options().write(true).open(&path).unwrap().write_all(&rewritten).unwrap();
    assert!(cache.get(&path, Level::Whole).is_none(), "rewritten, same size");

    // Grown, but the bytes before the old end changed: read whole.
    keep(&cache);
    let mut grown = rewritten.clone();
    grown.extend_from_slice(user_line("0a0b0c0d", "x", "more").as_bytes());
    fs::write(&path, &grown).unwrap();
    assert!(cache.get(&path, Level::Whole).is_none(), "grown after a rewrite");
}

#[test]
fn a_file_that_changed_while_it_was_read_is_not_kept() {
    let dir = tempfile::tempdir().unwrap();
    let cache = cache(&dir.path().join("cache"));
    let path = copy_fixture("2025-06-02T09-14-03", dir.path());
    let file = parse_file(&path).unwrap();
    append(&path, &user_line("0a0b0c0d", &leaf_id(&file), "meanwhile"));
    assert!(!cache.put(&file, Level::Whole).unwrap(), "the read is behind the file");
    assert!(cache_files(&dir.path().join("cache")).is_empty());
}

#[test]
fn a_damaged_or_foreign_cache_file_is_ignored_and_rebuilt() {
    let dir = tempfile::tempdir().unwrap();
    let cache_dir = dir.path().join("cache");
    let cache = cache(&cache_dir);
    let path = copy_fixture("2025-06-02T09-14-03", dir.path());
    let fresh = parse_file(&path).unwrap();
    cache.put(&fresh, Level::Whole).unwrap();
    let [cache_file] = &cache_files(&cache_dir)[..] else { panic!("one cache file") };
    let good = fs::read(cache_file).unwrap();
    let damages: Vec<(&str, Vec<u8>)> = vec![
        ("a byte of an entry flipped", {
            let mut b = good.clone();
            let at = b.len() - 100;
            b[at] ^= 0x20;
            b
        }),
        ("a byte of the header flipped", {
            let mut b = good.clone();
            b[20] ^= 1;
            b
        }),
        ("another format version", {
            let mut b = good.clone();
            b[8] = b[8].wrapping_add(1);
            b
        }),
        ("another magic", [b"NOTPITRE".as_slice(), &good[8..]].concat()),
        ("cut short", good[..good.len() / 2].to_vec()),
        ("empty", Vec::new()),
        ("garbage", vec![0xAB; 4096]),
        ("a huge segment count", {
            let mut b = good.clone();
            b[72..80].copy_from_slice(&u64::MAX.to_le_bytes());
            b
        }),
    ];
    for (what, bytes) in damages {
        fs::write(cache_file, &bytes).unwrap();
        assert!(cache.get(&path, Level::Whole).is_none(), "{what}");
        let read = read_and_keep(&cache, &path).unwrap();
        assert_same(&read, &fresh, what);
        assert_same(&cache.get(&path, Level::Whole).expect("rebuilt").file, &fresh, what);
    }
    fs::remove_dir_all(&cache_dir).unwrap();
    assert!(cache.get(&path, Level::Whole).is_none(), "deleted");
    read_and_keep(&cache, &path).unwrap();
    assert!(cache.get(&path, Level::Whole).is_some(), "made again");
}

#[test]
fn a_cache_file_of_another_session_at_the_same_place_is_not_used() {
    let dir = tempfile::tempdir().unwrap();
    let cache_dir = dir.path().join("cache");
    let cache = cache(&cache_dir);
    let a = copy_fixture("2025-06-02T09-14-03", dir.path());
    let b = copy_fixture("2025-06-03T14-02-40", dir.path());
    cache.put(&parse_file(&b).unwrap(), Level::Whole).unwrap();
    let [b_cache] = &cache_files(&cache_dir)[..] else { panic!() };
    cache.put(&parse_file(&a).unwrap(), Level::Whole).unwrap();
    let a_cache = cache_files(&cache_dir).into_iter().find(|f| f != b_cache).unwrap();
    fs::copy(b_cache, &a_cache).unwrap();
    assert!(cache.get(&a, Level::Whole).is_none(), "the cache file names another path");
}

#[test]
fn the_least_recently_used_cache_files_go_first_when_over_the_budget() {
    let dir = tempfile::tempdir().unwrap();
    let cache_dir = dir.path().join("cache");
    let names = ["2025-06-02T09-14-03", "2025-06-03T14-02-40", "2025-06-04T08-30-11", "2025-06-05T10-00-00"];
    let paths: Vec<PathBuf> = names.iter().map(|n| copy_fixture(n, dir.path())).collect();
    let unbounded = cache(&cache_dir);
    let mut sizes = Vec::new();
    for p in &paths {
        unbounded.put(&parse_file(p).unwrap(), Level::Whole).unwrap();
        sizes.push(cache_files(&cache_dir).iter().map(|f| fs::metadata(f).unwrap().len()).sum::<u64>());
    }
    let all = *sizes.last().unwrap();
    fs::remove_dir_all(&cache_dir).unwrap();
    // Room for all but about one.
    let budget = all - 1;
    let bounded = cache(&cache_dir).with_budget(budget);
    for (n, p) in paths.iter().enumerate() {
        bounded.put(&parse_file(p).unwrap(), Level::Whole).unwrap();
        // Distinct use times, whatever the file system's timestamp granularity.
        std::thread::sleep(std::time::Duration::from_millis(20));
        if n == 2 {
            assert!(bounded.get(&paths[0], Level::Whole).is_some(), "the first is used again");
            std::thread::sleep(std::time::Duration::from_millis(20));
        }
    }
    let total: u64 = cache_files(&cache_dir).iter().map(|f| fs::metadata(f).unwrap().len()).sum();
    assert!(total <= budget, "{total} bytes kept, budget {budget}");
    assert!(bounded.get(&paths[0], Level::Whole).is_some(), "used recently: kept");
    assert!(bounded.get(&paths[1], Level::Whole).is_none(), "the least recently used went");
    assert!(bounded.get(&paths[3], Level::Whole).is_some(), "the newest stays");

    let tiny = cache(&dir.path().join("tiny")).with_budget(10);
    assert!(!tiny.put(&parse_file(&paths[0]).unwrap(), Level::Whole).unwrap(), "over the budget alone");
    assert!(cache_files(&dir.path().join("tiny")).is_empty());
}

#[test]
fn two_writers_and_a_reader_at_once_only_ever_see_a_whole_cache_file() {
    let dir = tempfile::tempdir().unwrap();
    let cache = cache(&dir.path().join("cache"));
    let path = copy_fixture("2025-06-04T08-30-11", dir.path());
    let fresh = parse_file(&path).unwrap();
    let outline = outline_file(&path).unwrap();
    std::thread::scope(|s| {
        s.spawn(|| (0..40).for_each(|_| assert!(cache.put(&fresh, Level::Whole).unwrap())));
        s.spawn(|| (0..40).for_each(|_| assert!(cache.put(&outline, Level::Outline).unwrap())));
        s.spawn(|| {
            for _ in 0..200 {
                if let Some(got) = cache.get(&path, Level::Outline) {
                    let expected = if got.level == Level::Whole { &fresh } else { &outline };
                    assert_same(&got.file, expected, "read while written");
                }
            }
        });
    });
    let leftovers: Vec<PathBuf> = cache_files(&dir.path().join("cache"))
        .into_iter()
        .filter(|f| f.extension().is_none_or(|e| e != "bin"))
        .collect();
    assert!(leftovers.is_empty(), "no temp file is left: {leftovers:?}");
}

#[test]
fn a_legacy_file_that_grew_is_read_whole() {
    let dir = tempfile::tempdir().unwrap();
    let cache = cache(&dir.path().join("cache"));
    let path = copy_fixture("v2-legacy", dir.path());
    let before = parse_file(&path).unwrap();
    cache.put(&before, Level::Whole).unwrap();
    assert!(cache.get(&path, Level::Whole).is_some(), "unchanged: cached");
    append(&path, &user_line("0a0b0c0d", &leaf_id(&before), "more"));
    assert!(cache.get(&path, Level::Whole).is_none(), "migrated in memory as a whole: read again");
}

/// A session of about `mb` megabytes in the sandbox: a chain of user and assistant turns with
/// long answers, and a label, so that `show` and `context` have many rows and messages.
fn big_session(sandbox: &common::Sandbox, mb: usize) -> PathBuf {
    let dir = sandbox.sessions().join("--home-dev-big--");
    fs::create_dir_all(&dir).unwrap();
    let path = dir.join("2026-01-01T00-00-00-000Z_019b7a00-0000-7000-8000-000000000000.jsonl");
    let mut out = String::from(
        r#"{"type":"session","version":3,"id":"019b7a00-0000-7000-8000-000000000000","timestamp":"2026-01-01T00:00:00.000Z","cwd":"/home/dev/big"}"#,
    );
    out.push('\n');
    let answer = "All tests pass now; the parser reads the block again. ".repeat(60);
    let (mut parent, mut n) = ("null".to_string(), 0u32);
    while out.len() < mb << 20 {
        let (user, assistant) = (format!("{:08x}", 2 * n), format!("{:08x}", 2 * n + 1));
        out += &format!(
            r#"{{"type":"message","id":"{user}","parentId":{parent},"timestamp":"2026-01-01T00:00:01.000Z","message":{{"role":"user","content":"question {n}"}}}}"#
        );
        out += "\n";
        out += &format!(
            r#"{{"type":"message","id":"{assistant}","parentId":"{user}","timestamp":"2026-01-01T00:00:02.000Z","message":{{"role":"assistant","content":[{{"type":"text","text":"{answer}"}}],"provider":"anthropic","model":"claude","usage":{{"input":10,"output":20,"cacheRead":0,"cacheWrite":0,"cost":{{"total":0.01}}}},"stopReason":"stop"}}}}"#
        );
        out += "\n";
        parent = format!("\"{assistant}\"");
        n += 1;
    }
    out += &format!(
        r#"{{"type":"label","id":"ffff0001","parentId":{parent},"timestamp":"2026-01-01T00:00:03.000Z","targetId":"00000004","label":"start"}}"#
    );
    out += "\n";
    fs::write(&path, out).unwrap();
    path
}

#[test]
fn show_and_context_print_the_same_through_the_cache_and_keep_it() {
    let sandbox = common::Sandbox::new();
    let path = big_session(&sandbox, 9);
    let file = path.to_str().unwrap();
    let run = |args: &[&str], cache_mb: &str| {
        common::ok(&sandbox.command(args).env("PITREE_SESSION_CACHE_MB", cache_mb).output().unwrap())
    };
    let cache_dir = sandbox.dir.path().join("cache/pitree");
    for args in [["context", file, "--json"], ["show", file, "--json"]] {
        let uncached = run(&args, "0");
        assert!(cache_files(&cache_dir).is_empty(), "PITREE_SESSION_CACHE_MB=0 keeps nothing");
        assert_eq!(run(&args, "64"), uncached, "{args:?}, first run");
        assert_eq!(cache_files(&cache_dir).len(), 1, "{args:?} kept the session");
        assert_eq!(run(&args, "64"), uncached, "{args:?}, from the cache");
        append(&path, &user_line("fffffff0", "ffff0001", "and now?"));
        let grown = run(&args, "0");
        assert_ne!(grown, uncached);
        assert_eq!(run(&args, "64"), grown, "{args:?}, the cache and the appended line");
        fs::remove_dir_all(&cache_dir).unwrap();
    }
    let context = run(&["context", file], "64");
    assert!(context.contains("[user] and now?"), "{}", &context[context.len().saturating_sub(200)..]);
}

#[test]
fn pitree_processes_reading_and_keeping_one_session_at_once_all_print_the_same() {
    let sandbox = common::Sandbox::new();
    let path = big_session(&sandbox, 9);
    let file = path.to_str().unwrap();
    let cache_dir = sandbox.dir.path().join("cache/pitree");
    let uncached = common::ok(
        &sandbox.command(&["context", file, "--json"]).env("PITREE_SESSION_CACHE_MB", "0").output().unwrap(),
    );
    for round in 0..3 {
        let runs: Vec<std::process::Child> = (0..4)
            .map(|_| {
                sandbox
                    .command(&["context", file, "--json"])
                    .stdout(std::process::Stdio::piped())
                    .stderr(std::process::Stdio::piped())
                    .spawn()
                    .unwrap()
            })
            .collect();
        for run in runs {
            let out = run.wait_with_output().unwrap();
            assert_eq!(common::ok(&out), uncached, "round {round}: a process beside three others");
        }
        let kept = cache_files(&cache_dir);
        assert_eq!(kept.len(), 1, "round {round}: one whole cache file, no temp file left: {kept:?}");
        assert!(
            SessionCache::new(&cache_dir).get(&path, Level::Outline).is_some(),
            "round {round}: it reads back"
        );
    }
}
