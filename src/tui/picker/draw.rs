//! Drawing the picker, a pure function of its state: pi's header (title, scope, name filter and
//! sort) and hint lines, the search input, a progress bar while loading, the rows (cursor, thread
//! prefix, title with the query's matches highlighted, path, cwd, message count, age, the
//! running-pi marker), the preview pane, and a footer. Every text from a session file is
//! sanitized and measured per grapheme before it reaches the screen.

use std::path::Path;

use ratatui::Frame;
use ratatui::layout::{Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Paragraph};

use super::keys::{self, Hint};
use super::preview::{Preview, Role, format_usage};
use super::source::Row;
use super::state::{Load, Mode, Picker, PreviewSlot, ScopeKind};
use crate::catalog::SessionSummary;
use crate::catalog::display::display_title;
use crate::display::{
    abbreviate_home, format_age, one_line, take_cols, truncate, truncate_start, width, wrap_rows,
};
use crate::tui::keymap::{Action, Keymap};
use crate::tui::theme::Theme;
use crate::tui::widgets::input::Input;

/// The marker of a session a running pi holds.
pub const LIVE_MARK: &str = "●";

/// Everything drawing needs besides the picker.
pub struct Context<'a> {
    pub picker: &'a Picker,
    pub theme: &'a Theme,
    /// The picker's keys.
    pub keymap: &'a Keymap,
    pub now_ms: i64,
    /// The sessions root, for the empty state.
    pub root_label: &'a str,
    /// A session being read for the tree view.
    pub opening: Option<&'a Path>,
    /// `--print`: resuming prints the path.
    pub print: bool,
}

/// Where each part goes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Layout {
    pub header: Rect,
    pub query: Rect,
    pub progress: Rect,
    pub list: Rect,
    pub preview: Option<Rect>,
    pub footer: Rect,
}

/// Whether `area` has room for the list and the preview together.
pub fn preview_fits(area: Rect) -> bool {
    area.width >= 100 || area.height >= 30
}

/// Split the screen. The preview goes beside the list on wide screens, under it on tall ones, and
/// on small ones away, or (after F2) in the list's place.
pub fn layout(area: Rect, picker: &Picker) -> Layout {
    let line = |y: u16| {
        Rect::new(area.x, area.y + y.min(area.height.saturating_sub(1)), area.width, 1.min(area.height))
    };
    let body_top = 5.min(area.height);
    let body = Rect::new(area.x, area.y + body_top, area.width, area.height.saturating_sub(body_top + 1));
    let (list, preview) = if preview_fits(area) && !picker.show_preview {
        (body, None)
    } else if area.width >= 100 {
        let preview_w = (area.width * 2 / 5).max(40);
        let list_w = area.width - preview_w;
        (
            Rect::new(body.x, body.y, list_w, body.height),
            Some(Rect::new(body.x + list_w, body.y, preview_w, body.height)),
        )
    } else if area.height >= 30 {
        let list_h = body.height * 3 / 5;
        (
            Rect::new(body.x, body.y, body.width, list_h),
            Some(Rect::new(body.x, body.y + list_h, body.width, body.height - list_h)),
        )
    } else if picker.preview_instead {
        (Rect { height: 0, ..body }, Some(body))
    } else {
        (body, None)
    };
    Layout {
        header: Rect::new(area.x, area.y, area.width, 3.min(area.height)),
        query: line(3),
        progress: line(4),
        list,
        preview,
        footer: line(area.height.saturating_sub(1)),
    }
}

/// How many rows the list shows in `area`.
pub fn list_rows(area: Rect, picker: &Picker) -> usize {
    usize::from(layout(area, picker).list.height)
}

/// pi's window: centred on the selection, clamped to the list.
pub fn window_start(selected: usize, rows: usize, height: usize) -> usize {
    selected.saturating_sub(height / 2).min(rows.saturating_sub(height))
}

/// The row under a screen position.
pub fn row_at(layout: &Layout, picker: &Picker, at: Position) -> Option<usize> {
    if !layout.list.contains(at) {
        return None;
    }
    let height = usize::from(layout.list.height);
    let start = window_start(picker.selected_index(), picker.rows().len(), height);
    let row = start + usize::from(at.y - layout.list.y);
    (row < picker.rows().len()).then_some(row)
}

/// Draw the picker into `area`.
pub fn draw(frame: &mut Frame, area: Rect, cx: &Context) {
    let layout = layout(area, cx.picker);
    draw_header(frame, layout.header, cx);
    draw_query(frame, layout.query, cx);
    draw_progress(frame, layout.progress, cx);
    draw_list(frame, layout.list, cx);
    if let Some(preview) = layout.preview {
        draw_preview(frame, preview, cx);
    }
    draw_footer(frame, layout.footer, cx);
}

// -------------------------------------------------------------------------------------------
// header

fn draw_header(frame: &mut Frame, area: Rect, cx: &Context) {
    let p = cx.picker;
    let t = cx.theme;
    let lines = match &p.mode {
        Mode::Rename { input, .. } => {
            let (line, cursor) = input_line("> ", input, t, area.width);
            frame.set_cursor_position(Position::new(area.x + cursor, area.y + 1));
            vec![
                Line::styled("Rename Session", t.title),
                line,
                Line::styled("Enter to save · Esc/Ctrl+C to cancel", t.muted),
            ]
        }
        Mode::LiveRenameWarning { pid, .. } => vec![
            Line::styled("Rename Session", t.title),
            Line::styled(
                format!(
                    "pi (pid {pid}) is running this session: it will not see the new name until it is reopened."
                ),
                t.warning,
            ),
            Line::styled("Enter to rename anyway · Esc/Ctrl+C to cancel", t.muted),
        ],
        Mode::ConfirmDelete { live_pid, .. } => {
            let live = match live_pid {
                Some(pid) => format!(" pi (pid {pid}) is running it."),
                None => String::new(),
            };
            vec![
                title_line(cx, area.width),
                Line::styled(format!("Delete session?{live} [Enter] confirm · [Esc/Ctrl+C] cancel"), t.error),
                Line::default(),
            ]
        }
        Mode::Browse => match &p.status {
            Some(status) => {
                // A long message (a path, an error) takes both lines under the title.
                let style = if status.error { t.error } else { t.accent };
                let cols = usize::from(area.width);
                let rows = wrap_rows(&status.text, cols, 2);
                let last = rows.len() - 1;
                let mut lines = vec![title_line(cx, area.width)];
                for (i, row) in rows.into_iter().enumerate() {
                    let text = match i == last {
                        true => truncate(&status.text[row.start..], cols).into_owned(),
                        false => status.text[row].to_string(),
                    };
                    lines.push(Line::styled(text, style));
                }
                lines.resize(3, Line::default());
                lines
            }
            None => vec![
                title_line(cx, area.width),
                hints(&keys::hints_first(cx.keymap, cx.print), t),
                hints(&keys::hints_second(cx.keymap, p), t),
            ],
        },
    };
    frame.render_widget(
        Paragraph::new(lines.into_iter().map(|l| cut_line(l, area.width)).collect::<Vec<_>>()),
        area,
    );
}

/// `Resume Session (…)` on the left, scope, name filter and sort on the right.
fn title_line(cx: &Context, width: u16) -> Line<'static> {
    let p = cx.picker;
    let title = match p.scope {
        ScopeKind::Current => "Resume Session (Current Folder)",
        ScopeKind::All => "Resume Session (All)",
    };
    let scope = match (&p.list(p.scope).load, p.scope) {
        (Load::Loading { progress: Some((done, total)) }, _) => {
            format!("○ Current Folder | Loading {done}/{total}")
        }
        (Load::Loading { progress: None } | Load::NotStarted, _) => {
            "○ Current Folder | Loading ...".to_string()
        }
        (Load::Loaded, ScopeKind::Current) => "◉ Current Folder | ○ All".to_string(),
        (Load::Loaded, ScopeKind::All) => "○ Current Folder | ◉ All".to_string(),
    };
    let named = if p.named_only { "Named" } else { "All" };
    let right = format!("{scope}  Name: {named}  Sort: {}", p.sort.label());
    let right_w = width as usize;
    let room = right_w.saturating_sub(width_of(&right) + 1);
    let left = truncate(title, room).into_owned();
    let gap = right_w.saturating_sub(width_of(&left) + width_of(&right)).max(1);
    Line::from(vec![
        Span::styled(left, cx.theme.title),
        Span::raw(" ".repeat(gap)),
        Span::styled(right, cx.theme.muted),
    ])
}

/// Key hints: the key dim, its description muted, `·` between them.
fn hints(items: &[Hint], t: &Theme) -> Line<'static> {
    let mut spans = Vec::new();
    for (i, hint) in items.iter().enumerate() {
        if i > 0 {
            spans.push(Span::styled(" · ", t.muted));
        }
        if !hint.key.is_empty() {
            spans.push(Span::styled(hint.key.clone(), t.dim));
            spans.push(Span::raw(" "));
        }
        spans.push(Span::styled(hint.text.clone(), t.muted));
    }
    Line::from(spans)
}

// -------------------------------------------------------------------------------------------
// search input and progress

fn draw_query(frame: &mut Frame, area: Rect, cx: &Context) {
    let (line, cursor) = input_line("> ", &cx.picker.query, cx.theme, area.width);
    frame.render_widget(Paragraph::new(line), area);
    if matches!(cx.picker.mode, Mode::Browse) {
        frame.set_cursor_position(Position::new(area.x + cursor, area.y));
    }
}

/// A one-line input after `prompt`, scrolled so the cursor stays visible; and the cursor's column.
fn input_line(prompt: &str, input: &Input, t: &Theme, cols: u16) -> (Line<'static>, u16) {
    let prompt_w = width(prompt) as u16;
    let view = input.view(cols.saturating_sub(prompt_w + 1));
    let line =
        Line::from(vec![Span::styled(prompt.to_string(), t.accent), Span::styled(view.text, t.accent)]);
    (line, prompt_w + view.cursor_col)
}

fn draw_progress(frame: &mut Frame, area: Rect, cx: &Context) {
    let t = cx.theme;
    let line = if let Some(path) = cx.opening {
        let title = cx
            .picker
            .sessions()
            .iter()
            .find(|s| s.path == path)
            .map(display_title)
            .unwrap_or_else(|| path.display().to_string());
        Line::styled(format!("Opening {}…", one_line(&title)), t.accent)
    } else {
        match cx.picker.list(cx.picker.scope).load {
            Load::Loading { progress: Some((done, total)) } if total > 0 => {
                progress_bar(done, total, area.width, t)
            }
            Load::Loading { .. } | Load::NotStarted => Line::styled("Loading sessions…", t.muted),
            Load::Loaded => Line::default(),
        }
    };
    frame.render_widget(Paragraph::new(cut_line(line, area.width)), area);
}

/// `Loading sessions ━━━━━━──────── 120/5000`.
fn progress_bar(done: usize, total: usize, cols: u16, t: &Theme) -> Line<'static> {
    let label = "Loading sessions ";
    let count = format!(" {done}/{total}");
    let bar_w = usize::from(cols).saturating_sub(label.len() + count.len()).min(40);
    let filled = (bar_w * done.min(total)).checked_div(total).unwrap_or(0);
    Line::from(vec![
        Span::styled(label, t.muted),
        Span::styled("━".repeat(filled), t.accent),
        Span::styled("─".repeat(bar_w - filled), t.dim),
        Span::styled(count, t.muted),
    ])
}

// -------------------------------------------------------------------------------------------
// rows

fn draw_list(frame: &mut Frame, area: Rect, cx: &Context) {
    let p = cx.picker;
    if p.rows().is_empty() {
        let text = empty_state(cx);
        let lines: Vec<Line> =
            text.into_iter().map(|l| cut_line(Line::styled(l, cx.theme.muted), area.width)).collect();
        frame.render_widget(Paragraph::new(lines), area);
        return;
    }
    let height = usize::from(area.height);
    let start = window_start(p.selected_index(), p.rows().len(), height);
    let lines: Vec<Line> = p.rows()[start..]
        .iter()
        .take(height)
        .enumerate()
        .map(|(i, row)| row_line(cx, row, start + i == p.selected_index(), area.width))
        .collect();
    frame.render_widget(Paragraph::new(lines), area);
}

/// What an empty list says, and what to do about it (pi's texts, plus the search and the root).
fn empty_state(cx: &Context) -> Vec<String> {
    let p = cx.picker;
    let key = |a| keys::label(cx.keymap, a);
    if let Some(error) = &p.query_error {
        return vec![format!("  Invalid search: {error}")];
    }
    let searching = !p.query.value().trim().is_empty();
    if p.list(p.scope).is_loading() {
        if p.sessions().is_empty() {
            return vec!["  Looking for sessions…".into()];
        }
        if searching {
            // The scan hands the message texts over when it ends (`source`).
            return vec!["  No sessions match yet: the messages are searched once loading ends.".into()];
        }
    }
    if searching {
        return vec![format!(
            "  No sessions match this search. {} clears it{}.",
            "ctrl+u",
            match p.scope {
                ScopeKind::Current => format!(", {} searches all folders", key(Action::ToggleScope)),
                ScopeKind::All => String::new(),
            }
        )];
    }
    let named = key(Action::ToggleNamed);
    let tab = key(Action::ToggleScope);
    match (p.named_only, p.scope) {
        (true, ScopeKind::All) => vec![format!("  No named sessions found. Press {named} to show all.")],
        (true, ScopeKind::Current) => vec![format!(
            "  No named sessions in current folder. Press {named} to show all, or {tab} to view all."
        )],
        (false, ScopeKind::All) => vec![
            "  No sessions found".into(),
            format!("  pi keeps its sessions in {}; start pi to create one.", cx.root_label),
        ],
        (false, ScopeKind::Current) => {
            vec![format!("  No sessions in current folder. Press {tab} to view all.")]
        }
    }
}

/// One row: `› ` or two spaces, the tree prefix, the title, then `[● ][path ][cwd ]count age`.
fn row_line(cx: &Context, row: &Row, selected: bool, cols: u16) -> Line<'static> {
    let p = cx.picker;
    let t = cx.theme;
    let s = p.summary(row);
    let deleting = matches!(&p.mode, Mode::ConfirmDelete { path, .. } if *path == s.path);
    let live = p.live_pid(s).is_some();
    let live_w = if live { width_of(LIVE_MARK) + 1 } else { 0 };
    let folded = if row.hidden > 0 { format!(" [+{}]", row.hidden) } else { String::new() };
    let prefix_w = width_of(&row.prefix);
    let cols = usize::from(cols);
    let right = right_part(cx, s, cols.saturating_sub(2 + prefix_w + MIN_TITLE + 2 + live_w));
    let right_w = width_of(&right) + live_w;
    let room = MIN_TITLE.max(cols.saturating_sub(2 + prefix_w + right_w + 2 + width_of(&folded)));
    let title = display_title(s);
    let shown = truncate(&title, room).into_owned();
    let mut title_style = if deleting {
        t.error
    } else if s.name.as_deref().is_some_and(|n| !n.trim().is_empty()) {
        t.warning
    } else {
        Style::new()
    };
    if selected {
        title_style = title_style.add_modifier(Modifier::BOLD);
    }
    let mut spans = vec![
        if selected { Span::styled("› ", t.accent) } else { Span::raw("  ") },
        Span::styled(row.prefix.clone(), t.connector),
    ];
    spans.extend(highlighted(&shown, &p.title_hits(row), title_style, t.highlight));
    spans.push(Span::styled(folded.clone(), t.dim));
    let used = 2 + prefix_w + width_of(&shown) + width_of(&folded);
    spans.push(Span::raw(" ".repeat(cols.saturating_sub(used + right_w).max(1))));
    if live {
        spans.push(Span::styled(format!("{LIVE_MARK} "), t.success));
    }
    spans.push(Span::styled(right, if deleting { t.error } else { t.dim }));
    let line = Line::from(spans);
    if selected { line.style(t.selected) } else { line }
}

/// The columns a title keeps however wide the right part is (pi's `max(10, …)`).
const MIN_TITLE: usize = 10;
/// The columns a shortened path or cwd keeps.
const MIN_PATH: usize = 16;

/// `[<~path> ][<~cwd> ]<count> <age>`, within `max` columns where it can be: the path, then the
/// cwd, lose their start (`…`) so that the count and age stay on screen.
fn right_part(cx: &Context, s: &SessionSummary, max: usize) -> String {
    let p = cx.picker;
    let home = p.home.as_deref();
    let tail = format!("{} {}", s.message_count, format_age(s.modified_ms, cx.now_ms));
    let path = p.show_path.then(|| abbreviate_home(&s.path, home));
    let cwd =
        (p.scope == ScopeKind::All && !s.cwd.is_empty()).then(|| abbreviate_home(Path::new(&s.cwd), home));
    let spaces = path.iter().chain(&cwd).count();
    let room = max.saturating_sub(width_of(&tail) + spaces);
    let cwd_w = cwd.as_deref().map_or(0, width_of);
    let path = path.map(|p| truncate_start(&p, room.saturating_sub(cwd_w).max(MIN_PATH)).into_owned());
    let path_w = path.as_deref().map_or(0, width_of);
    let cwd = cwd.map(|c| truncate_start(&c, room.saturating_sub(path_w).max(MIN_PATH)).into_owned());
    let mut out = String::new();
    for part in path.iter().chain(&cwd) {
        out.push_str(part);
        out.push(' ');
    }
    out.push_str(&tail);
    out
}

/// `text` in `style`, with the byte ranges `hits` (of the full title; `text` may be cut) in
/// `hit_style` patched on top.
fn highlighted(
    text: &str,
    hits: &[std::ops::Range<usize>],
    style: Style,
    hit_style: Style,
) -> Vec<Span<'static>> {
    let mut spans = Vec::new();
    let mut at = 0;
    for hit in hits {
        let (start, end) = (hit.start.min(text.len()), hit.end.min(text.len()));
        if start < at || start >= end || !text.is_char_boundary(start) || !text.is_char_boundary(end) {
            continue;
        }
        if start > at {
            spans.push(Span::styled(text[at..start].to_string(), style));
        }
        spans.push(Span::styled(text[start..end].to_string(), style.patch(hit_style)));
        at = end;
    }
    if at < text.len() {
        spans.push(Span::styled(text[at..].to_string(), style));
    }
    spans
}

// -------------------------------------------------------------------------------------------
// preview

fn draw_preview(frame: &mut Frame, area: Rect, cx: &Context) {
    let t = cx.theme;
    let block = Block::default()
        .borders(Borders::LEFT | Borders::TOP)
        .border_style(t.border)
        .title(Span::styled(" Preview ", t.muted));
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let Some(s) = cx.picker.selected() else { return };
    let cols = usize::from(inner.width.saturating_sub(1));
    let mut lines = preview_header(cx, s, cols);
    let body_h = usize::from(inner.height).saturating_sub(lines.len());
    match cx.picker.preview() {
        None => lines.push(Line::styled("Loading preview…", t.muted)),
        Some(PreviewSlot::Failed(e)) => {
            lines.push(Line::styled(format!("Cannot read this session: {}", one_line(e)), t.error))
        }
        Some(PreviewSlot::Ready(preview)) => {
            lines.extend(preview_stats(preview, t));
            let body_h = body_h.saturating_sub(2);
            lines.extend(transcript(preview, cols, body_h, cx.picker.preview_scroll, t));
        }
    }
    let area = Rect::new(inner.x + 1, inner.y, inner.width.saturating_sub(1), inner.height);
    frame.render_widget(
        Paragraph::new(lines.into_iter().map(|l| cut_line(l, area.width)).collect::<Vec<_>>()),
        area,
    );
}

fn preview_header(cx: &Context, s: &SessionSummary, cols: usize) -> Vec<Line<'static>> {
    let t = cx.theme;
    let home = cx.picker.home.as_deref();
    let mut lines = vec![
        Line::styled(truncate(&display_title(s), cols).into_owned(), t.title),
        Line::styled(
            format!(
                "{} messages · {} {} · {}",
                s.message_count,
                s.branches,
                if s.branches == 1 { "branch" } else { "branches" },
                format_age(s.modified_ms, cx.now_ms)
            ),
            t.muted,
        ),
        Line::styled(abbreviate_home(Path::new(&s.cwd), home), t.dim),
        Line::styled(truncate(&one_line(&s.id), cols).into_owned(), t.dim),
    ];
    if s.unreadable_lines > 0 {
        let n = s.unreadable_lines;
        lines.push(Line::styled(
            format!("⚠ {n} {} could not be read", if n == 1 { "line" } else { "lines" }),
            t.warning,
        ));
    }
    if let Some(pid) = cx.picker.live_pid(s) {
        lines.push(Line::styled(format!("{LIVE_MARK} open in a running pi (pid {pid})"), t.success));
    }
    lines
}

fn preview_stats(preview: &Preview, t: &Theme) -> Vec<Line<'static>> {
    let model = preview.model.as_deref().map(|m| format!(" · {m}")).unwrap_or_default();
    vec![
        Line::styled(
            format!("Active branch: {} of {} entries{model}", preview.branch_entries, preview.total_entries),
            t.muted,
        ),
        Line::styled(format_usage(&preview.branch_usage), t.muted),
    ]
}

/// The end of the transcript that fits in `height` lines, `scroll` lines up from the end.
fn transcript(preview: &Preview, cols: usize, height: usize, scroll: usize, t: &Theme) -> Vec<Line<'static>> {
    let want = height + scroll;
    let mut lines: Vec<Line<'static>> = Vec::new();
    for item in preview.items.iter().rev() {
        let mut block = item_lines(item, cols, t);
        block.push(Line::default());
        block.append(&mut lines);
        lines = block;
        if lines.len() >= want {
            break;
        }
    }
    if lines.len() < want && preview.omitted > 0 {
        lines.insert(0, Line::styled(format!("… {} earlier items", preview.omitted), t.dim));
    }
    let end = lines.len().saturating_sub(scroll.min(lines.len().saturating_sub(height)));
    let start = end.saturating_sub(height);
    lines.drain(start..end).collect()
}

fn item_lines(item: &super::preview::Item, cols: usize, t: &Theme) -> Vec<Line<'static>> {
    let (label_style, text_style) = match item.role {
        Role::User => (t.accent, Style::new()),
        Role::Assistant => (t.success, Style::new()),
        Role::Summary => (t.warning, t.muted),
        Role::Bash => (t.dim, t.dim),
        Role::ToolCall => (t.dim, t.muted),
        Role::ToolResult | Role::Other => (t.dim, t.dim),
    };
    let label = item.role.label();
    if matches!(item.role, Role::ToolCall | Role::ToolResult | Role::Bash | Role::Other) {
        let text = if label.is_empty() { item.text.clone() } else { format!("{label}: {}", item.text) };
        return vec![Line::styled(truncate(&text, cols).into_owned(), text_style)];
    }
    let mut lines = vec![Line::styled(format!("{label}:"), label_style.add_modifier(Modifier::BOLD))];
    let wrap_w = cols.saturating_sub(2).max(10);
    for para in item.text.lines() {
        if para.trim().is_empty() {
            lines.push(Line::default());
            continue;
        }
        for piece in textwrap::wrap(para, wrap_w) {
            lines.push(Line::styled(format!("  {piece}"), text_style));
        }
    }
    lines
}

// -------------------------------------------------------------------------------------------
// footer

fn draw_footer(frame: &mut Frame, area: Rect, cx: &Context) {
    let p = cx.picker;
    let t = cx.theme;
    let rows = p.rows().len();
    let height = list_rows(frame.area(), p);
    let position = if rows > height {
        format!("  ({}/{rows})", p.selected_index() + 1)
    } else {
        format!("  {rows} {}", if rows == 1 { "session" } else { "sessions" })
    };
    let live = p.sessions().iter().filter(|s| p.live_pid(s).is_some()).count();
    let mut right = Vec::new();
    if live > 0 {
        right.push(Span::styled(format!("{LIVE_MARK} {live} open in pi"), t.success));
        right.push(Span::styled(" · ", t.muted));
    }
    right.push(Span::styled(keys::label(cx.keymap, Action::Help), t.dim));
    right.push(Span::styled(" help ", t.muted));
    let right_w: usize = right.iter().map(|s| width_of(&s.content)).sum();
    let gap = usize::from(area.width).saturating_sub(width_of(&position) + right_w).max(1);
    let mut spans = vec![Span::styled(position, t.muted), Span::raw(" ".repeat(gap))];
    spans.extend(right);
    frame.render_widget(Paragraph::new(cut_line(Line::from(spans), area.width)), area);
}

// -------------------------------------------------------------------------------------------
// helpers

fn width_of(text: &str) -> usize {
    width(text)
}

/// A line cut to `cols` columns (ratatui would clip too, but a cut wide character would leave
/// half a glyph).
fn cut_line(line: Line<'static>, cols: u16) -> Line<'static> {
    let mut left = usize::from(cols);
    let style = line.style;
    let mut spans = Vec::new();
    for span in line.spans {
        if left == 0 {
            break;
        }
        let w = width(&span.content);
        if w <= left {
            left -= w;
            spans.push(span);
        } else {
            spans.push(Span::styled(take_cols(&span.content, left).to_string(), span.style));
            left = 0;
        }
    }
    Line::from(spans).style(style)
}
