//! The module edges of `src/` point one way: no import cycle among the library's modules, and no
//! arrow from a lower layer up into a higher one: the session model knows nothing of the store,
//! the catalog, the TUI, the command line or the manager API; the store writes the model and takes
//! nothing from the catalog, the TUI, the command line or the manager; the catalog builds on the
//! model and never reaches the TUI, the command line or the manager.
//!
//! What counts: every file under `src/` (but `main.rs`, the binary's own crate, which only calls
//! the library) is one module, `src/a/b.rs` or `src/a/b/mod.rs` being `a::b`; inline modules
//! (`mod tests { … }`) belong to their file. An edge A → B is any path in A's code that names B or
//! an item of B: a `use` (`pub use` included, `{…}` groups, `self`, globs, renames) or a path of
//! two or more segments in an expression, type, pattern, macro path or macro body (`crate::x::y`,
//! `super::x`, `self::x`, a child module's name, or a name a `use` brought into scope).
//!
//! A path counts as written. Its first segment means what it means where the path is written
//! (`crate`, `self`, `super`, a child module, or a name one of that module's `use` items or globs
//! brought in, followed to what the `use` names); from there the path goes down through child
//! modules, and its first other segment is an item of the module reached: the edge goes to that
//! module, whether it defines the item or only re-exports it. So `crate::catalog::js::trim` is an
//! edge to `catalog::js` even though `trim` is defined in `session::js` (a re-export is a
//! dependency on the module that re-exports, and is itself an edge from it to the source), and a
//! child naming anything through `super::` is an edge child → parent, even a name the parent only
//! re-exports. A `mod child;` declaration is not an edge; paths into other crates, comments and
//! doc comments are not read; `#[cfg(test)]` code counts like the rest. The graph of file modules
//! must have no strongly connected component of two or more modules: on failure every such
//! component is printed with its edges (and where each is first made) and a shortest cycle
//! through it.

use std::collections::{BTreeMap, BTreeSet, HashMap, VecDeque};
use std::fs;
use std::path::{Path, PathBuf};

use proc_macro2::{Spacing, TokenStream, TokenTree};
use syn::visit::{self, Visit};

/// A module's path from the crate root: `[]` is the root, `["session", "graph"]` is `session::graph`.
type ModPath = Vec<String>;

/// Layer rules: no module under the first prefix may reach one under any of the others.
const FORBIDDEN: &[(&str, &[&str])] = &[
    ("session", &["store", "catalog", "tui", "cli", "manager"]),
    ("store", &["catalog", "tui", "cli", "manager"]),
    ("catalog", &["tui", "cli", "manager"]),
];

#[test]
fn no_cycle_among_modules() {
    let crate_ = Crate::load();
    let edges = crate_.edges();
    let cycles = components(&edges);
    let report: Vec<String> = cycles.iter().map(|scc| describe(scc, &edges)).collect();
    assert!(
        report.is_empty(),
        "{} import cycle(s) among src/ modules:\n\n{}",
        report.len(),
        report.join("\n")
    );
}

#[test]
fn no_edge_up_the_layers() {
    let crate_ = Crate::load();
    let mut wrong = Vec::new();
    for ((from, to), at) in crate_.edges() {
        for (lower, higher) in FORBIDDEN {
            if under(&from, lower) && higher.iter().any(|h| under(&to, h)) {
                wrong.push(format!("  {} → {}  ({at})", name(&from), name(&to)));
            }
        }
    }
    assert!(wrong.is_empty(), "edges up the layers:\n{}", wrong.join("\n"));
}

/// The test's own parser on a small crate: it must see every kind of path the rule names.
#[test]
fn the_parser_sees_every_kind_of_path() {
    let files = [
        (vec![], "mod a; mod b; pub use a::A;"),
        (
            vec!["a"],
            "use super::b::{self, c::{C, D as E}}; pub use crate::b::c::*;
             fn f() { let _ = crate::b::c::C::new(); b::g(); format!(\"{}\", super::b::h()); }
             // use crate::z;
             /// crate::z::f()
             mod tests { use super::*; }
             pub struct A;",
        ),
        (vec!["b"], "pub mod c; fn g() {} fn h() {} mod inner { fn i() { let _ = super::super::A; } }"),
        (vec!["b", "c"], "pub struct C; pub struct D; fn j() -> super::super::a::A { todo!() }"),
        (vec!["z"], ""),
    ];
    let mut crate_ = Crate::default();
    for (path, source) in files {
        crate_.add(path.iter().map(|s| s.to_string()).collect(), PathBuf::from("x.rs"), source);
    }
    let edges: BTreeSet<(String, String)> =
        crate_.edges().into_keys().map(|(f, t)| (name(&f), name(&t))).collect();
    let want: BTreeSet<(String, String)> = [
        ("crate", "a"),
        ("a", "b"),
        ("a", "b::c"),
        // `super::super::A` names the root's `A` (which the root re-exports from `a`).
        ("b", "crate"),
        ("b::c", "a"),
    ]
    .into_iter()
    .map(|(f, t)| (f.to_string(), t.to_string()))
    .collect();
    assert_eq!(edges, want);
    assert_eq!(components(&crate_.edges()).len(), 1, "crate → a → b → crate, a ↔ b::c");
}

/// Every module of the crate (file and inline ones) with what its names resolve to.
#[derive(Default)]
struct Crate {
    modules: BTreeMap<ModPath, Module>,
    /// The parsed files by module path, with the file's path for messages.
    files: BTreeMap<ModPath, (PathBuf, syn::File)>,
}

#[derive(Default)]
struct Module {
    /// The file module this one is written in (itself for a file module).
    file: ModPath,
    /// Items defined here (functions, types, constants, macros, …) by name.
    items: BTreeSet<String>,
    /// `use` items by the name they bring in, with the path as written.
    uses: HashMap<String, Vec<String>>,
    /// Glob imports' paths as written.
    globs: Vec<Vec<String>>,
}

/// What a path names: a module, or an item defined in a module.
#[derive(Clone, Debug)]
enum Res {
    Module(ModPath),
    Item(ModPath),
}

impl Res {
    fn module(&self) -> &ModPath {
        match self {
            Res::Module(m) | Res::Item(m) => m,
        }
    }
}

impl Crate {
    fn load() -> Crate {
        let src = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
        let mut crate_ = Crate::default();
        for file in rust_files(&src) {
            let rel = file.strip_prefix(&src).unwrap();
            if rel == Path::new("main.rs") {
                continue;
            }
            let mut path: ModPath = rel.iter().map(|c| c.to_string_lossy().into_owned()).collect();
            let last = path.pop().unwrap();
            match last.as_str() {
                "lib.rs" if path.is_empty() => {}
                "mod.rs" => {}
                _ => path.push(last.trim_end_matches(".rs").to_string()),
            }
            let source = fs::read_to_string(&file).unwrap();
            crate_.add(path, Path::new("src").join(rel), &source);
        }
        crate_
    }

    fn add(&mut self, path: ModPath, file: PathBuf, source: &str) {
        let parsed = syn::parse_file(source).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        self.collect(&path, &path, &parsed.items);
        self.files.insert(path, (file, parsed));
    }

    /// Record a module's items, uses and inline modules.
    fn collect(&mut self, path: &ModPath, file: &ModPath, items: &[syn::Item]) {
        let mut module = Module { file: file.clone(), ..Module::default() };
        let mut inline = Vec::new();
        for item in items {
            let ident = match item {
                syn::Item::Use(u) => {
                    for (name, segments) in flatten_use(&u.tree) {
                        match name {
                            Some(name) => {
                                module.uses.insert(name, segments);
                            }
                            None => module.globs.push(segments),
                        }
                    }
                    continue;
                }
                syn::Item::Mod(m) => {
                    if let Some((_, content)) = &m.content {
                        inline.push((m.ident.to_string(), content));
                    }
                    continue;
                }
                syn::Item::Const(i) => &i.ident,
                syn::Item::Enum(i) => &i.ident,
                syn::Item::ExternCrate(i) => &i.ident,
                syn::Item::Fn(i) => &i.sig.ident,
                syn::Item::Macro(i) => match &i.ident {
                    Some(ident) => ident,
                    None => continue,
                },
                syn::Item::Static(i) => &i.ident,
                syn::Item::Struct(i) => &i.ident,
                syn::Item::Trait(i) => &i.ident,
                syn::Item::TraitAlias(i) => &i.ident,
                syn::Item::Type(i) => &i.ident,
                syn::Item::Union(i) => &i.ident,
                _ => continue,
            };
            module.items.insert(ident.to_string());
        }
        self.modules.insert(path.clone(), module);
        for (name, content) in inline {
            let mut child = path.clone();
            child.push(name);
            self.collect(&child, file, content);
        }
    }

    /// Every edge between two different file modules, with where it is first made.
    fn edges(&self) -> BTreeMap<(ModPath, ModPath), String> {
        let mut edges = BTreeMap::new();
        for (path, (file, parsed)) in &self.files {
            let mut walker = Walker { crate_: self, scope: path.clone(), found: Vec::new() };
            walker.visit_file(parsed);
            for (target, line) in walker.found {
                let target = self.modules[&target].file.clone();
                if &target != path {
                    edges
                        .entry((path.clone(), target))
                        .or_insert_with(|| format!("{}:{line}", file.display()));
                }
            }
        }
        edges
    }

    /// Resolve a path written in module `scope`; `None` for other crates, locals and generics.
    fn resolve(&self, scope: &ModPath, segments: &[String], depth: usize) -> Option<Res> {
        if depth > 32 || segments.is_empty() {
            return None;
        }
        let mut at = match segments[0].as_str() {
            "crate" => Vec::new(),
            "self" => scope.clone(),
            "super" => scope[..scope.len().checked_sub(1)?].to_vec(),
            first => return Some(self.walk(self.in_scope(scope, first, depth)?, &segments[1..])),
        };
        let mut rest = &segments[1..];
        while rest.first().map(String::as_str) == Some("super") {
            at.pop()?;
            rest = &rest[1..];
        }
        Some(self.walk(Res::Module(at), rest))
    }

    /// Follow `rest` from `at` through child modules; the first other name is an item of the module
    /// reached, whatever that module imports it from.
    fn walk(&self, mut at: Res, rest: &[String]) -> Res {
        for segment in rest {
            at = match at {
                Res::Module(mut m) => {
                    m.push(segment.clone());
                    if self.modules.contains_key(&m) {
                        Res::Module(m)
                    } else {
                        m.pop();
                        return Res::Item(m);
                    }
                }
                item @ Res::Item(_) => return item,
            };
        }
        at
    }

    /// What `name` means where it is written, in module `m`: a child module, what an import of `m`
    /// names, an item defined in `m`, or what a glob import of `m` brings in under that name.
    fn in_scope(&self, m: &ModPath, name: &str, depth: usize) -> Option<Res> {
        let module = self.modules.get(m)?;
        let mut child = m.clone();
        child.push(name.to_string());
        if self.modules.contains_key(&child) {
            return Some(Res::Module(child));
        }
        if let Some(segments) = module.uses.get(name) {
            return self.resolve(m, segments, depth + 1);
        }
        if module.items.contains(name) {
            return Some(Res::Item(m.clone()));
        }
        for glob in &module.globs {
            if let Some(Res::Module(g)) = self.resolve(m, glob, depth + 1)
                && g != *m
                && let Some(res) = self.in_scope(&g, name, depth + 1)
            {
                return Some(res);
            }
        }
        None
    }
}

/// Walks one file's syntax and records the module every path of it reaches.
struct Walker<'a> {
    crate_: &'a Crate,
    scope: ModPath,
    /// (module reached, line)
    found: Vec<(ModPath, usize)>,
}

impl Walker<'_> {
    fn reach(&mut self, segments: &[String], line: usize) {
        if let Some(res) = self.crate_.resolve(&self.scope, segments, 0) {
            self.found.push((res.module().clone(), line));
        }
    }

    /// Paths inside a macro's tokens: `a::b::c` runs of identifiers joined by `::`.
    fn reach_tokens(&mut self, tokens: TokenStream) {
        let tokens: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < tokens.len() {
            match &tokens[i] {
                TokenTree::Group(g) => {
                    self.reach_tokens(g.stream());
                    i += 1;
                }
                TokenTree::Ident(ident) if !follows_colons(&tokens, i) => {
                    let line = ident.span().start().line;
                    let mut segments = vec![ident.to_string()];
                    let mut j = i + 1;
                    while is_colons(&tokens, j)
                        && let Some(TokenTree::Ident(next)) = tokens.get(j + 2)
                    {
                        segments.push(next.to_string());
                        j += 3;
                    }
                    if segments.len() > 1 {
                        self.reach(&segments, line);
                    }
                    i = j;
                }
                _ => i += 1,
            }
        }
    }
}

impl<'ast> Visit<'ast> for Walker<'_> {
    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if m.content.is_some() {
            self.scope.push(m.ident.to_string());
            visit::visit_item_mod(self, m);
            self.scope.pop();
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if u.leading_colon.is_some() {
            return;
        }
        let line = u.use_token.span.start().line;
        for (_, segments) in flatten_use(&u.tree) {
            self.reach(&segments, line);
        }
    }

    fn visit_path(&mut self, path: &'ast syn::Path) {
        // One segment names something already in scope (whose `use` made the edge), or a local.
        if path.leading_colon.is_none() && path.segments.len() > 1 {
            let segments: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
            self.reach(&segments, path.segments[0].ident.span().start().line);
        }
        visit::visit_path(self, path);
    }

    fn visit_macro(&mut self, mac: &'ast syn::Macro) {
        self.reach_tokens(mac.tokens.clone());
        visit::visit_macro(self, mac);
    }
}

fn is_colons(tokens: &[TokenTree], i: usize) -> bool {
    matches!((tokens.get(i), tokens.get(i + 1)),
        (Some(TokenTree::Punct(a)), Some(TokenTree::Punct(b)))
            if a.as_char() == ':' && a.spacing() == Spacing::Joint && b.as_char() == ':')
}

/// Whether the identifier at `i` continues a path (`::ident`) or a `$crate`, rather than starting one.
fn follows_colons(tokens: &[TokenTree], i: usize) -> bool {
    (i >= 2 && is_colons(tokens, i - 2))
        || matches!(i.checked_sub(1).map(|p| &tokens[p]), Some(TokenTree::Punct(p)) if p.as_char() == '$')
            && tokens[i].to_string() != "crate"
}

/// The leaves of a `use` tree: (name brought in, or `None` for a glob; the path as written).
fn flatten_use(tree: &syn::UseTree) -> Vec<(Option<String>, Vec<String>)> {
    fn go(tree: &syn::UseTree, prefix: &mut Vec<String>, out: &mut Vec<(Option<String>, Vec<String>)>) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                go(&p.tree, prefix, out);
                prefix.pop();
            }
            syn::UseTree::Name(n) if n.ident == "self" => {
                out.push((prefix.last().cloned(), prefix.clone()));
            }
            syn::UseTree::Name(n) => {
                let mut path = prefix.clone();
                path.push(n.ident.to_string());
                out.push((Some(n.ident.to_string()), path));
            }
            syn::UseTree::Rename(r) => {
                let mut path = prefix.clone();
                if r.ident != "self" {
                    path.push(r.ident.to_string());
                }
                out.push((Some(r.rename.to_string()), path));
            }
            syn::UseTree::Glob(_) => out.push((None, prefix.clone())),
            syn::UseTree::Group(g) => {
                for tree in &g.items {
                    go(tree, prefix, out);
                }
            }
        }
    }
    let mut out = Vec::new();
    go(tree, &mut Vec::new(), &mut out);
    out
}

fn rust_files(dir: &Path) -> Vec<PathBuf> {
    let mut files = Vec::new();
    let mut entries: Vec<_> = fs::read_dir(dir).unwrap().map(|e| e.unwrap().path()).collect();
    entries.sort();
    for path in entries {
        if path.is_dir() {
            files.extend(rust_files(&path));
        } else if path.extension().is_some_and(|e| e == "rs") {
            files.push(path);
        }
    }
    files
}

fn name(path: &ModPath) -> String {
    if path.is_empty() { "crate".to_string() } else { path.join("::") }
}

fn under(path: &ModPath, top: &str) -> bool {
    path.first().is_some_and(|first| first == top)
}

/// The strongly connected components of two or more modules (Tarjan's algorithm).
fn components(edges: &BTreeMap<(ModPath, ModPath), String>) -> Vec<Vec<ModPath>> {
    struct Tarjan<'a> {
        next: BTreeMap<&'a ModPath, Vec<&'a ModPath>>,
        index: HashMap<&'a ModPath, usize>,
        low: HashMap<&'a ModPath, usize>,
        stack: Vec<&'a ModPath>,
        on_stack: BTreeSet<&'a ModPath>,
        found: Vec<Vec<ModPath>>,
    }
    impl<'a> Tarjan<'a> {
        fn visit(&mut self, v: &'a ModPath) {
            let i = self.index.len();
            self.index.insert(v, i);
            self.low.insert(v, i);
            self.stack.push(v);
            self.on_stack.insert(v);
            for w in self.next.get(v).cloned().unwrap_or_default() {
                if !self.index.contains_key(w) {
                    self.visit(w);
                    self.low.insert(v, self.low[v].min(self.low[w]));
                } else if self.on_stack.contains(w) {
                    self.low.insert(v, self.low[v].min(self.index[w]));
                }
            }
            if self.low[v] == self.index[v] {
                let mut scc = Vec::new();
                while let Some(w) = self.stack.pop() {
                    self.on_stack.remove(w);
                    scc.push(w.clone());
                    if w == v {
                        break;
                    }
                }
                if scc.len() > 1 {
                    scc.sort();
                    self.found.push(scc);
                }
            }
        }
    }
    let mut next: BTreeMap<&ModPath, Vec<&ModPath>> = BTreeMap::new();
    for (from, to) in edges.keys() {
        next.entry(from).or_default().push(to);
        next.entry(to).or_default();
    }
    let nodes: Vec<&ModPath> = next.keys().copied().collect();
    let mut t = Tarjan {
        next,
        index: HashMap::new(),
        low: HashMap::new(),
        stack: Vec::new(),
        on_stack: BTreeSet::new(),
        found: Vec::new(),
    };
    for v in nodes {
        if !t.index.contains_key(v) {
            t.visit(v);
        }
    }
    t.found.sort();
    t.found
}

/// One component: its modules, a shortest cycle through its first module, and its edges.
fn describe(scc: &[ModPath], edges: &BTreeMap<(ModPath, ModPath), String>) -> String {
    let inside = |m: &ModPath| scc.contains(m);
    let internal: Vec<_> = edges.iter().filter(|((f, t), _)| inside(f) && inside(t)).collect();
    // Breadth-first from the first module back to itself.
    let start = &scc[0];
    let mut prev: HashMap<&ModPath, &ModPath> = HashMap::new();
    let mut queue = VecDeque::from([start]);
    let mut closing = None;
    'bfs: while let Some(v) = queue.pop_front() {
        for ((f, t), _) in &internal {
            if f == v {
                if t == start {
                    closing = Some(v);
                    break 'bfs;
                }
                if !prev.contains_key(t) {
                    prev.insert(t, v);
                    queue.push_back(t);
                }
            }
        }
    }
    let mut cycle = vec![name(start)];
    let mut at = closing.expect("a component has a cycle through each of its modules");
    while at != start {
        cycle.push(name(at));
        at = prev[at];
    }
    cycle.push(name(start));
    cycle.reverse();
    let mut out = format!(
        "cycle: {}\n  component: {}\n",
        cycle.join(" → "),
        scc.iter().map(name).collect::<Vec<_>>().join(", ")
    );
    for ((f, t), at) in internal {
        out.push_str(&format!("    {} → {}  ({at})\n", name(f), name(t)));
    }
    out
}
