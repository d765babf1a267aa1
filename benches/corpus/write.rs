//! Writing: the catalog (every planned session, in parallel), the one big session, and the growth
//! appended to a session for the relist row, each through a [`Generator`].

use super::*;

/// Writes the catalog into `agent_dir/sessions/` and returns what it holds.
pub fn write_catalog(agent_dir: &Path, spec: &CorpusSpec) -> Result<CorpusStats> {
    let sessions_dir = agent_dir.join("sessions");
    let plans = plan_catalog(spec, &sessions_dir);
    for plan in &plans {
        let dir = plan.file.parent().unwrap_or(&sessions_dir);
        fs::create_dir_all(dir).wrap_err_with(|| format!("creating {}", dir.display()))?;
    }
    let pools = Pools::new();
    let counts = plans
        .par_iter()
        .map_init(|| (Vec::new(), Vec::new()), |buffers, plan| write_planned(plan, &plans, &pools, buffers))
        .collect::<Result<Vec<Counts>>>()?;
    Ok(catalog_stats(&plans, &counts))
}

pub(crate) fn catalog_stats(plans: &[Plan], counts: &[Counts]) -> CorpusStats {
    let mut total = Counts::default();
    counts.iter().for_each(|c| total.add(c));
    let mut sizes: Vec<u64> = counts.iter().map(|c| c.bytes).collect();
    sizes.sort_unstable();
    let cwds: HashSet<&str> = plans.iter().map(|p| p.cwd).collect();
    let count = |f: &dyn Fn(&Plan) -> bool| plans.iter().filter(|p| f(p)).count() as u64;
    CorpusStats {
        files: plans.len() as u64,
        counts: total,
        cwds: cwds.len() as u64,
        forks: count(&|p| p.fork_of.is_some()),
        v1: count(&|p| p.format == Format::V1),
        v2: count(&|p| p.format == Format::V2),
        damaged: count(&|p| p.damage.any()),
        named: counts.iter().filter(|c| c.names > 0).count() as u64,
        median_file: sizes.get(sizes.len() / 2).copied().unwrap_or(0),
        largest_file: sizes.last().copied().unwrap_or(0),
        grow_target: plans.iter().rev().find(|p| p.intact_v3()).map(|p| p.file.clone()).unwrap_or_default(),
    }
}

/// Writes the big session (100,000 entries / 300 MB at scale 1, one named v3 conversation with
/// branches, labels and compactions) into the sessions folder `sessions_dir`.
pub fn write_big_session(sessions_dir: &Path, spec: &BigSpec) -> Result<(PathBuf, Counts)> {
    let mut rng = Rng::stream(BIG_STREAM);
    let created = END_MS - 45 * DAY_MS;
    let id = uuid_v7(created, &mut rng);
    let dir = sessions_dir.join(encode_cwd(BIG_CWD));
    fs::create_dir_all(&dir).wrap_err_with(|| format!("creating {}", dir.display()))?;
    let plan = Plan {
        seed: BIG_STREAM,
        format: Format::V3,
        cwd: BIG_CWD,
        created,
        file: dir.join(file_name(created, &id)),
        id,
        fork_of: None,
        damage: Damage::default(),
        named: true,
        budget: Budget { bytes: spec.bytes, entries: Some(spec.entries) },
    };
    let counts = write_planned(&plan, &[], &Pools::new(), &mut (Vec::new(), Vec::new()))?;
    Ok((plan.file, counts))
}

/// Appends about `n` bytes of whole pi turns to the v3 session at `path`, continuing from its last
/// entry with fresh unique ids and later timestamps. Returns the number of bytes appended.
pub fn append_bytes(path: &Path, n: u64) -> Result<u64> {
    let data = fs::read(path).wrap_err_with(|| format!("reading {}", path.display()))?;
    if data.last() != Some(&b'\n') {
        bail!("{} does not end with a newline", path.display());
    }
    let mut taken = HashSet::new();
    let mut last = None;
    for line in data.split(|&b| b == b'\n') {
        if let Some((id, ms)) = entry_id_and_time(line) {
            taken.insert(id);
            last = Some((id, ms));
        }
    }
    let (leaf, ms) = last.ok_or_else(|| eyre!("{} has no entries with ids", path.display()))?;
    let pools = Pools::new();
    let budget = Budget { bytes: n, entries: None };
    let seed = APPEND_STREAM ^ (data.len() as u64).rotate_left(17);
    let mut generator = Generator::new(&pools, seed, Format::V3, ms, budget, Vec::new());
    generator.ids.taken = taken;
    generator.leaf = Some(leaf);
    generator.tick(300_000, 7_200_000);
    let mut file = OpenOptions::new()
        .append(true)
        .open(path)
        .wrap_err_with(|| format!("opening {} for append", path.display()))?;
    generator.conversation(&mut file)?;
    generator.close(&mut file)?;
    Ok(generator.total())
}

/// The id and timestamp of a v2/v3 entry line (not the header), read from pi's key order.
pub(crate) fn entry_id_and_time(line: &[u8]) -> Option<(u32, i64)> {
    if line.starts_with(b"{\"type\":\"session\"") {
        return None;
    }
    let id = string_field(line, b"\"id\":\"")?;
    let ts = string_field(line, b"\"timestamp\":\"")?;
    if id.len() != 8 {
        return None;
    }
    let id = u32::from_str_radix(std::str::from_utf8(id).ok()?, 16).ok()?;
    Some((id, parse_iso(ts)?))
}

pub(crate) fn string_field<'a>(line: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    let start = memmem::find(line, key)? + key.len();
    let len = memchr::memchr(b'"', &line[start..])?;
    Some(&line[start..start + len])
}

pub(crate) fn write_planned(
    plan: &Plan,
    plans: &[Plan],
    pools: &Pools,
    (buffer, scratch): &mut (Vec<u8>, Vec<u8>),
) -> Result<Counts> {
    let context = || format!("writing {}", plan.file.display());
    let mut file = File::create(&plan.file).wrap_err_with(context)?;
    let mut generator = Generator::for_plan(plan, pools, std::mem::take(buffer));
    let parent = plan.fork_of.map(|i| &plans[i]);
    generator.header(plan, parent.map(|p| p.file.as_path()));
    match parent {
        Some(parent) => generator.copy_prefix(parent, scratch)?,
        None => generator.preamble(plan.cwd, plan.created >= SYSTEM_MESSAGE_SINCE),
    }
    generator.conversation(&mut file).wrap_err_with(context)?;
    generator.close(&mut file).wrap_err_with(context)?;
    file.set_modified(system_time(generator.now)).wrap_err_with(context)?;
    let counts = Counts { bytes: generator.total(), ..generator.counts };
    *buffer = generator.out;
    Ok(counts)
}
