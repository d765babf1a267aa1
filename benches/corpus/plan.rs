//! The catalog plan: every session's shape (format, size budget, cwd, creation time, damage, the
//! session it forks), decided up front from one stream so that writing can run in parallel.

use super::*;

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    V1,
    V2,
    V3,
}

#[derive(Clone, Copy, Default)]
pub(crate) struct Damage {
    pub(crate) malformed_middle: bool,
    pub(crate) truncated_tail: bool,
}

impl Damage {
    pub(crate) fn any(self) -> bool {
        self.malformed_middle || self.truncated_tail
    }
}

/// How much a session holds: `bytes`, paced over `entries` when that is given.
#[derive(Clone, Copy)]
pub(crate) struct Budget {
    pub(crate) bytes: u64,
    pub(crate) entries: Option<u64>,
}

pub(crate) struct Plan {
    pub(crate) seed: u64,
    pub(crate) format: Format,
    pub(crate) cwd: &'static str,
    pub(crate) created: i64,
    pub(crate) id: String,
    pub(crate) file: PathBuf,
    pub(crate) fork_of: Option<usize>,
    pub(crate) damage: Damage,
    pub(crate) named: bool,
    pub(crate) budget: Budget,
}

impl Plan {
    pub(crate) fn intact_v3(&self) -> bool {
        self.format == Format::V3 && self.fork_of.is_none() && !self.damage.any()
    }
}

pub(crate) fn plan_catalog(spec: &CorpusSpec, sessions_dir: &Path) -> Vec<Plan> {
    let mut rng = Rng::stream(PLAN_STREAM);
    let n = spec.sessions;
    let mut created: Vec<i64> =
        (0..n).map(|_| END_MS - SPAN_MS + rng.below((SPAN_MS - DAY_MS) as u64) as i64).collect();
    created.sort_unstable();
    let (sizes, huge) = plan_sizes(&mut rng, n, spec.bytes);
    let cwds = &CWDS[..spec.cwds.clamp(1, CWDS.len())];
    let mut plans: Vec<Plan> = (0..n)
        .map(|i| {
            let cwd = pick_cwd(&mut rng, cwds);
            let id = uuid_v7(created[i], &mut rng);
            Plan {
                seed: SESSION_STREAM + i as u64,
                format: Format::V3,
                cwd,
                created: created[i],
                file: sessions_dir.join(encode_cwd(cwd)).join(file_name(created[i], &id)),
                id,
                fork_of: None,
                damage: Damage::default(),
                named: rng.chance(0.2),
                budget: Budget { bytes: sizes[i], entries: None },
            }
        })
        .collect();
    plan_legacy(&mut rng, &mut plans, &huge);
    plan_damage(&mut rng, &mut plans, &huge);
    plan_forks(&mut rng, &mut plans, &huge);
    plans
}

/// Sizes skewed like real use: log-normal around 40 KB, plus a few 10–50 MB sessions, scaled to the total.
pub(crate) fn plan_sizes(rng: &mut Rng, n: usize, total: u64) -> (Vec<u64>, HashSet<usize>) {
    let mut sizes: Vec<f64> =
        (0..n).map(|_| (40_000.0 * (1.4 * rng.normal()).exp()).clamp(2_000.0, 8e6)).collect();
    let huge_count = ((n as f64 * 0.0025).round() as usize).max(1);
    let huge: HashSet<usize> = rng.sample((n / 5..n).collect(), huge_count).into_iter().collect();
    for &i in &huge {
        sizes[i] = rng.range(10 * MB, 50 * MB) as f64;
    }
    let huge_total: f64 = huge.iter().map(|&i| sizes[i]).sum();
    let huge_scale = (0.4 * total as f64 / huge_total).min(1.0);
    let rest: f64 = sizes.iter().sum::<f64>() - huge_total;
    let rest_scale = (total as f64 - huge_total * huge_scale) / rest;
    let sizes = sizes
        .iter()
        .enumerate()
        .map(|(i, &s)| {
            let scale = if huge.contains(&i) { huge_scale } else { rest_scale };
            (s * scale).max(2_000.0) as u64
        })
        .collect();
    (sizes, huge)
}

/// Zipf-like: the first cwds get most sessions.
pub(crate) fn pick_cwd(rng: &mut Rng, cwds: &[&'static str]) -> &'static str {
    let weights: Vec<f64> = (0..cwds.len()).map(|k| 1.0 / (k as f64 + 1.0).powf(0.9)).collect();
    let mut x = rng.unit() * weights.iter().sum::<f64>();
    for (cwd, w) in cwds.iter().zip(&weights) {
        if x < *w {
            return cwd;
        }
        x -= w;
    }
    cwds[cwds.len() - 1]
}

pub(crate) fn share(n: usize, rate: f64) -> usize {
    ((n as f64 * rate).round() as usize).max(1)
}

/// 1% legacy files, among the oldest 30%, half v1 (no ids) and half v2.
pub(crate) fn plan_legacy(rng: &mut Rng, plans: &mut [Plan], huge: &HashSet<usize>) {
    let oldest = (plans.len() * 3 / 10).max(2);
    let candidates = (0..oldest).filter(|i| !huge.contains(i)).collect();
    for (k, i) in rng.sample(candidates, share(plans.len(), 0.01)).into_iter().enumerate() {
        let plan = &mut plans[i];
        plan.format = if k % 2 == 0 { Format::V1 } else { Format::V2 };
        plan.id = uuid_v4(rng);
        plan.file = plan.file.with_file_name(file_name(plan.created, &plan.id));
        plan.named = false;
        plan.budget.bytes = plan.budget.bytes.min(2 * MB);
    }
}

/// 0.5% damaged files: a malformed middle line, a truncated last line, or both.
pub(crate) fn plan_damage(rng: &mut Rng, plans: &mut [Plan], huge: &HashSet<usize>) {
    let candidates =
        (0..plans.len()).filter(|i| plans[*i].format == Format::V3 && !huge.contains(i)).collect();
    for (k, i) in rng.sample(candidates, share(plans.len(), 0.005)).into_iter().enumerate() {
        plans[i].damage = Damage { malformed_middle: k % 3 != 2, truncated_tail: k % 3 != 1 };
    }
}

/// 5% forks: their first lines are copied from an earlier intact session of under 1 MB, created at
/// least two days before them, whose absolute path is their header's `parentSession`.
pub(crate) fn plan_forks(rng: &mut Rng, plans: &mut [Plan], huge: &HashSet<usize>) {
    let candidates =
        (plans.len() / 10..plans.len()).filter(|i| plans[*i].intact_v3() && !huge.contains(i)).collect();
    let children = rng.sample(candidates, share(plans.len(), 0.05));
    let is_child: HashSet<usize> = children.iter().copied().collect();
    let is_parent = |j: usize, p: &Plan| p.intact_v3() && p.budget.bytes < MB && !is_child.contains(&j);
    for &child in &children {
        let latest = plans[child].created - 2 * DAY_MS;
        let eligible = plans[..child].partition_point(|p| p.created <= latest);
        let parent = (0..20)
            .map(|_| rng.below(eligible.max(1) as u64) as usize)
            .find(|&j| j < eligible && is_parent(j, &plans[j]));
        plans[child].fork_of = parent;
    }
}
