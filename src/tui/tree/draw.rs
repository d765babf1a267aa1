//! Drawing the tree view from its state, and nothing else: a title line, the search line, the rows
//! of the window around the selection (pi's centring and horizontal pan, only the rows that fit are
//! built), the status line, the detail pane, the hint lines (pi 1.6.0's help items, wrapped), and
//! the open dialog on top.

use ratatui::Frame;
use ratatui::layout::{Constraint, Direction, Layout, Position, Rect};
use ratatui::style::{Modifier, Style};
use ratatui::text::{Line, Span};
use ratatui::widgets::{Block, Borders, Clear, Paragraph};

use super::detail::Detail;
use super::editor::Editor;
use super::search::hit_ranges;
use super::state::{Mode, State};
use crate::display::{sanitize, skip_cols, take_cols, width, wrap_rows};
use crate::session::flatten::{LEAF_TAG, RowParts};
use crate::session::text::Tone;
use crate::tui::theme::Theme;

/// Columns of the cursor gutter (`› `).
const CURSOR_COLS: usize = 2;
/// The detail pane goes to the right from this width, below from this height.
const SIDE_BY_SIDE_COLS: u16 = 110;
const STACKED_ROWS: u16 = 26;
const SPINNER: [&str; 10] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"];

pub fn draw(state: &State, frame: &mut Frame, area: Rect, theme: &Theme) {
    let hint_lines = wrap_hints(&hint_items(state), area.width as usize, max_hint_lines(area.height));
    let [title, search, body, hints] = Layout::vertical([
        Constraint::Length(1),
        Constraint::Length(1),
        Constraint::Min(1),
        Constraint::Length(hint_lines.len() as u16),
    ])
    .areas(area);
    draw_title(state, frame, title, theme);
    draw_search(state, frame, search, theme);
    let (list, detail) = split_body(state, body);
    draw_list(state, frame, list, theme);
    if let Some(detail) = detail {
        draw_detail(&state.detail, &state.tokens(), frame, detail, theme);
        state.detail_height.set(detail.height.saturating_sub(1) as usize);
    }
    let hint_lines: Vec<Line> = hint_lines.into_iter().map(|l| Line::styled(l, theme.dim)).collect();
    frame.render_widget(Paragraph::new(hint_lines), hints);
    draw_mode(state, frame, area, theme);
}

/// The list and the detail pane: side by side on a wide screen, stacked on a tall one, and on a
/// small one either the list or (after Tab) the detail pane alone.
fn split_body(state: &State, body: Rect) -> (Rect, Option<Rect>) {
    let direction = if body.width >= SIDE_BY_SIDE_COLS {
        Some(Direction::Horizontal)
    } else if body.height >= STACKED_ROWS {
        Some(Direction::Vertical)
    } else {
        None
    };
    state.detail_fits.set(direction.is_some());
    match direction {
        None if state.detail_instead => (Rect { height: 0, ..body }, Some(body)),
        None => (body, None),
        Some(_) if !state.show_detail => (body, None),
        Some(direction) => {
            let [list, detail] = Layout::default()
                .direction(direction)
                .constraints([Constraint::Percentage(55), Constraint::Percentage(45)])
                .areas(body);
            (list, Some(detail))
        }
    }
}

fn draw_title(state: &State, frame: &mut Frame, area: Rect, theme: &Theme) {
    let session = state.session();
    let name = session.graph.name().map(|n| format!(" · {}", sanitize(n))).unwrap_or_default();
    let mut spans = vec![Span::styled(format!(" Session Tree{name}"), theme.title)];
    if let Some(pid) = state.options.live_pid {
        spans.push(Span::styled(format!("  ● open in pi (pid {pid})"), theme.warning));
    }
    let damaged = session.file.damage.len();
    if damaged > 0 {
        let lines = if damaged == 1 { "line" } else { "lines" };
        spans.push(Span::styled(format!("  {damaged} {lines} could not be read"), theme.error));
    }
    frame.render_widget(Paragraph::new(Line::from(spans)), area);
}

fn draw_search(state: &State, frame: &mut Frame, area: Rect, theme: &Theme) {
    let focused = state.mode == Mode::Search;
    let label = if focused {
        match state.options.keys.hint_key("tui.select.confirm") {
            Some(done) => format!("  Search (every key types, {} done): ", short_key(&done)),
            None => "  Search (every key types): ".to_string(),
        }
    } else {
        "  Type to search: ".to_string()
    };
    let query = sanitize(&state.query);
    let x = area.x + (width(&label) + width(&query)) as u16;
    let line =
        Line::from(vec![Span::styled(label, theme.muted), Span::styled(query.to_string(), theme.accent)]);
    frame.render_widget(Paragraph::new(line), area);
    if focused {
        frame.set_cursor_position(Position::new(x.min(area.right().saturating_sub(1)), area.y));
    }
}

/// The window of rows, centred on the selection as pi does, and the status line.
fn draw_list(state: &State, frame: &mut Frame, area: Rect, theme: &Theme) {
    if area.height == 0 {
        return;
    }
    let height = area.height as usize - 1;
    let n = state.rows.len();
    let start = state.selected.saturating_sub(height / 2).min(n.saturating_sub(height));
    state.list_window.set((Rect { height: height as u16, ..area }, start));
    let mut lines: Vec<Line> = Vec::with_capacity(height + 1);
    if n == 0 {
        lines.push(Line::styled("  No entries found", theme.muted));
    } else {
        let end = (start + height).min(n);
        let label_time = |ms: i64| state.format_label_time(ms);
        let label_time: Option<&dyn Fn(i64) -> String> = state.label_times.then_some(&label_time as _);
        let cx = state.row_context(label_time);
        let parts: Vec<RowParts> = (start..end).map(|r| state.rows.parts(r, &cx)).collect();
        let vw = (area.width as usize).saturating_sub(CURSOR_COLS);
        let scroll = pan(&parts, state.selected - start, vw);
        let tokens = state.tokens();
        for (i, p) in parts.iter().enumerate() {
            lines.push(row_line(p, start + i == state.selected, scroll, vw, &tokens, theme));
        }
    }
    lines.resize(height, Line::default());
    lines.push(status_line(state, theme));
    frame.render_widget(Paragraph::new(lines), area);
}

/// pi's horizontal pan: when the selected row's anchor (prefix and markers) leaves too little room
/// for its text, every row is shifted left by the same amount.
fn pan(parts: &[RowParts], selected: usize, vw: usize) -> usize {
    let Some(row) = parts.get(selected) else {
        return 0;
    };
    let anchor = width(&row.anchor());
    let min_visible = (vw / 3).clamp(4, 20);
    if anchor <= vw.saturating_sub(min_visible) {
        return 0;
    }
    let widest = parts.iter().map(|p| width(&p.plain())).max().unwrap_or(0);
    widest.saturating_sub(vw).min(anchor.saturating_sub((vw / 4).clamp(2, 12)))
}

/// One row: cursor, then the body's styled pieces panned by `scroll` and cut to `vw` columns, with
/// the leaf tag kept in view and the search hits highlighted.
fn row_line<'a>(
    p: &RowParts,
    selected: bool,
    scroll: usize,
    vw: usize,
    tokens: &[String],
    theme: &Theme,
) -> Line<'a> {
    let mut pieces: Vec<(String, Style)> = vec![
        (p.prefix.clone(), theme.connector),
        (p.fold_marker.to_string(), theme.accent),
        (p.path_marker.to_string(), theme.path_marker),
        (p.label_part(), theme.label),
        (p.label_time_part(), theme.muted),
    ];
    let text_style = if selected { Style::new().add_modifier(Modifier::BOLD) } else { Style::new() };
    for piece in &p.text.pieces {
        pieces.extend(highlighted(
            &piece.text,
            tone_style(piece.tone, theme).patch(text_style),
            tokens,
            theme,
        ));
    }
    let tag_cols = if p.is_leaf { width(LEAF_TAG) } else { 0 };
    let mut spans = clip(pieces, scroll, vw.saturating_sub(tag_cols));
    if p.is_leaf {
        spans.push(Span::styled(LEAF_TAG, theme.leaf_marker));
    }
    let cursor = if selected { Span::styled("› ", theme.accent) } else { Span::raw("  ") };
    spans.insert(0, cursor);
    let line = Line::from(spans);
    if selected { line.style(theme.selected) } else { line }
}

/// `text` split into plain and highlighted pieces around the query's hits.
fn highlighted(text: &str, style: Style, tokens: &[String], theme: &Theme) -> Vec<(String, Style)> {
    let mut out = Vec::new();
    let mut at = 0;
    for hit in hit_ranges(text, tokens) {
        out.push((text[at..hit.start].to_string(), style));
        out.push((text[hit.clone()].to_string(), style.patch(theme.highlight)));
        at = hit.end;
    }
    out.push((text[at..].to_string(), style));
    out
}

/// Skip `skip` columns of the pieces, then keep at most `cols` columns; a cut row ends in `...`,
/// as pi's rows do.
fn clip<'a>(pieces: Vec<(String, Style)>, mut skip: usize, mut cols: usize) -> Vec<Span<'a>> {
    let total: usize = pieces.iter().map(|(t, _)| width(t)).sum();
    let cut = total.saturating_sub(skip) > cols && cols >= 3;
    if cut {
        cols -= 3;
    }
    let mut spans = Vec::new();
    let mut last_style = Style::new();
    for (text, style) in pieces {
        if cols == 0 {
            break;
        }
        let w = width(&text);
        if skip >= w {
            skip -= w;
            continue;
        }
        let visible = skip_cols(&text, skip);
        skip = 0;
        let kept = take_cols(&visible, cols).to_string();
        cols -= width(&kept);
        last_style = style;
        if !kept.is_empty() {
            spans.push(Span::styled(kept, style));
        }
    }
    if cut {
        spans.push(Span::styled("...", last_style));
    }
    spans
}

fn tone_style(tone: Tone, theme: &Theme) -> Style {
    match tone {
        Tone::Normal => Style::new(),
        Tone::Accent => theme.accent,
        Tone::Success => theme.success,
        Tone::Error => theme.error,
        Tone::Warning => theme.warning,
        Tone::Muted => theme.muted,
        Tone::Dim => theme.dim,
        Tone::CustomLabel => theme.custom_message_label,
        Tone::BorderAccent => theme.border_accent,
        Tone::Italic => theme.dim.add_modifier(Modifier::ITALIC),
    }
}

fn status_line<'a>(state: &State, theme: &Theme) -> Line<'a> {
    let mut spans = vec![Span::styled(format!("  {}", state.status_line()), theme.muted)];
    if let Some(status) = &state.status {
        let style = if status.error { theme.error } else { theme.accent };
        spans.push(Span::styled(format!("  {}", sanitize(&status.text)), style));
    }
    Line::from(spans)
}

/// The detail pane: its lines from the scroll position, each wrapped between words to the width,
/// hits marked; when the current hit is on the first line shown, from the row before the hit's.
fn draw_detail(detail: &Detail, tokens: &[String], frame: &mut Frame, area: Rect, theme: &Theme) {
    let block =
        Block::default().borders(Borders::LEFT | Borders::TOP).border_style(theme.border).title(" Detail ");
    let inner = block.inner(area);
    frame.render_widget(block, area);
    let cols = inner.width.max(1) as usize;
    let height = inner.height as usize;
    let mut lines: Vec<Line> = Vec::new();
    if detail.pending() {
        lines.push(Line::styled("loading…", theme.muted));
    }
    let current = detail.hit.map(|h| &detail.hits[h]);
    for (i, l) in detail.lines.iter().enumerate().skip(detail.scroll) {
        let room = height.saturating_sub(lines.len());
        if room == 0 {
            break;
        }
        let style = tone_style(l.tone, theme);
        let hit = current.filter(|(line, _)| *line == i).map(|(_, range)| range);
        let pieces = match hit {
            Some(range) => mark_current(
                &l.text,
                range,
                style,
                theme.highlight.add_modifier(Modifier::REVERSED),
                tokens,
                theme,
            ),
            None => highlighted(&l.text, style, tokens, theme),
        };
        // The current hit on the first line shown is scrolled to: that line is wrapped whole.
        let scroll_to = hit.filter(|_| i == detail.scroll);
        let mut rows = wrap_rows(&l.text, cols, if scroll_to.is_some() { usize::MAX } else { room });
        if let Some(range) = scroll_to {
            let hit_row = rows.iter().position(|r| r.end > range.start).unwrap_or(rows.len());
            rows.drain(..hit_row.saturating_sub(1).min(rows.len()));
        }
        rows.truncate(room);
        lines.extend(styled_rows(&l.text, &pieces, &rows));
    }
    lines.truncate(height);
    frame.render_widget(Paragraph::new(lines), inner);
}

fn mark_current(
    text: &str,
    current: &std::ops::Range<usize>,
    style: Style,
    strong: Style,
    tokens: &[String],
    theme: &Theme,
) -> Vec<(String, Style)> {
    let mut out = highlighted(&text[..current.start], style, tokens, theme);
    out.push((text[current.clone()].to_string(), strong));
    out.extend(highlighted(&text[current.end..], style, tokens, theme));
    out
}

/// The `rows` of `text` (byte ranges of it, in order), each a line of the styled `pieces` that
/// `text` is made of.
fn styled_rows<'a>(text: &str, pieces: &[(String, Style)], rows: &[std::ops::Range<usize>]) -> Vec<Line<'a>> {
    let mut at = 0;
    let placed: Vec<(std::ops::Range<usize>, Style)> = pieces
        .iter()
        .map(|(piece, style)| {
            at += piece.len();
            (at - piece.len()..at, *style)
        })
        .collect();
    let mut first = 0;
    rows.iter()
        .map(|row| {
            while placed.get(first).is_some_and(|(range, _)| range.end <= row.start) {
                first += 1;
            }
            let spans = placed[first..]
                .iter()
                .take_while(|(range, _)| range.start < row.end)
                .map(|(range, style)| (range.start.max(row.start)..range.end.min(row.end), *style))
                .filter(|(part, _)| !part.is_empty())
                .map(|(part, style)| Span::styled(text[part].to_string(), style));
            Line::from(spans.collect::<Vec<_>>())
        })
        .collect()
}

/// The help items, built from the view's keymap, most wanted first: each names keybinding ids, as
/// pi's do, and shows the first key of each (compactly: `^x`, `←`, `esc`); an item whose actions
/// have no key is left out. The last is the help overlay, which lists the rest.
fn hint_items(state: &State) -> Vec<String> {
    let keys = &state.options.keys;
    let hint = |ids: &[&str], text: &str| -> Option<String> {
        let shown: Vec<String> =
            ids.iter().filter_map(|id| keys.hint_key(id)).map(|k| short_key(&k)).collect();
        (!shown.is_empty()).then(|| format!("{} {text}", shown.join("/")))
    };
    let hints: Vec<Option<String>> = match &state.mode {
        Mode::Search => vec![
            Some("type to search".to_string()),
            hint(&["tui.select.confirm"], "done"),
            hint(&["tui.select.cancel"], "clear"),
            hint(&["tui.select.up", "tui.select.down"], "move"),
            hint(&["pitree.tree.nextHit", "pitree.tree.prevHit"], "next/previous hit"),
        ],
        _ => {
            let filters = hint(
                &[
                    "app.tree.filter.default",
                    "app.tree.filter.noTools",
                    "app.tree.filter.userOnly",
                    "app.tree.filter.labeledOnly",
                    "app.tree.filter.all",
                ],
                "filter",
            );
            let cycle = hint(&["app.tree.filter.cycleForward"], "cycle");
            let filters = match (filters, cycle) {
                (Some(filters), Some(cycle)) => Some(format!("{filters} ({cycle})")),
                (filters, cycle) => filters.or(cycle),
            };
            vec![
                hint(&["tui.select.up", "tui.select.down"], "move"),
                hint(&["tui.editor.cursorLeft", "tui.editor.cursorRight"], "page"),
                hint(&["app.tree.foldOrUp", "app.tree.unfoldOrDown"], "fold/branch"),
                hint(&["tui.select.confirm"], "select"),
                hint(&["app.tree.editLabel"], "label"),
                hint(&["app.tree.toggleLabelTimestamp"], "label time"),
                hint(&["app.message.copy"], "copy"),
                hint(&["pitree.tree.fork"], "fork"),
                hint(&["pitree.tree.rename"], "rename"),
                hint(&["pitree.tree.search"], "search"),
                hint(&["pitree.tree.nextHit", "pitree.tree.prevHit"], "hits"),
                filters,
                hint(&["pitree.tree.toggleDetail"], "detail"),
                hint(&["tui.select.cancel"], "back"),
            ]
        }
    };
    hints.into_iter().chain([hint(&["pitree.help"], "help")]).flatten().collect()
}

/// How many hint lines a screen `height` rows high gives up for help: one on a short screen, up
/// to three on a tall one, so the rows keep most of the screen.
fn max_hint_lines(height: u16) -> usize {
    usize::from(height / 8).clamp(1, 3)
}

/// `items` laid out as pi 1.6.0 lays out its help: whole items joined by ` · `, wrapped onto as
/// many lines of `cols` columns as they need, but at most `max_lines`. When they do not all fit,
/// the items that would go past the last line are left out and the last item (the help overlay's
/// key) ends that line instead, as far as it has room.
fn wrap_hints(items: &[String], cols: usize, max_lines: usize) -> Vec<String> {
    const SEP: &str = " · ";
    let fits = |line: &str, item: &str| width(line) + width(SEP) + width(item) <= cols;
    let mut lines: Vec<String> = Vec::new();
    for item in items {
        match lines.last_mut() {
            Some(line) if fits(line, item) => {
                line.push_str(SEP);
                line.push_str(item);
            }
            _ => lines.push(format!(" {item}")),
        }
    }
    if lines.len() > max_lines
        && let Some(last_item) = items.last()
    {
        lines.truncate(max_lines);
        let line = lines.last_mut().expect("max_lines is at least 1");
        while !fits(line, last_item)
            && let Some(at) = line.rfind(SEP)
        {
            line.truncate(at);
        }
        if fits(line, last_item) {
            line.push_str(SEP);
            line.push_str(last_item);
        }
    }
    lines.iter().map(|l| take_cols(l, cols).to_string()).collect()
}

/// A key as the hint line spells it: `ctrl+` as `^`, arrows as arrows, `esc`, `pgup`, `pgdn`
/// (`shift+ctrl+o` → `shift+^o`, `alt+left` → `alt+←`).
fn short_key(key: &str) -> String {
    let mut rest = key;
    let mut mods = String::new();
    let mut ctrl = false;
    loop {
        if let Some(r) = rest.strip_prefix("shift+").filter(|r| !r.is_empty()) {
            mods.push_str("shift+");
            rest = r;
        } else if let Some(r) = rest.strip_prefix("alt+").filter(|r| !r.is_empty()) {
            mods.push_str("alt+");
            rest = r;
        } else if let Some(r) = rest.strip_prefix("ctrl+").filter(|r| !r.is_empty()) {
            ctrl = true;
            rest = r;
        } else {
            break;
        }
    }
    let name = match rest {
        "up" => "↑",
        "down" => "↓",
        "left" => "←",
        "right" => "→",
        "escape" => "esc",
        "pageUp" => "pgup",
        "pageDown" => "pgdn",
        other => other,
    };
    format!("{mods}{}{name}", if ctrl { "^" } else { "" })
}

/// The open dialog or input over the view.
fn draw_mode(state: &State, frame: &mut Frame, area: Rect, theme: &Theme) {
    match &state.mode {
        Mode::Browse | Mode::Search => {}
        Mode::Label { editor, .. } => {
            draw_input(frame, area, theme, " Label (empty to remove) ", editor, "enter save · esc cancel")
        }
        Mode::Rename { editor } => draw_input(
            frame,
            area,
            theme,
            " Session name (empty to clear) ",
            editor,
            "enter save · esc cancel",
        ),
        Mode::Move(dialog) => {
            let mut lines = vec![Line::styled(dialog.title(), theme.title), Line::default()];
            for (i, choice) in dialog.choices.iter().enumerate() {
                let text = format!("{}. {}", i + 1, choice.text(state.summarizer()));
                lines.push(if i == dialog.cursor {
                    Line::from(vec![Span::styled("› ", theme.accent), Span::styled(text, theme.accent)])
                } else {
                    Line::raw(format!("  {text}"))
                });
            }
            lines.push(Line::default());
            lines.push(Line::styled("↑/↓ choose · enter confirm · esc cancel", theme.dim));
            draw_box(frame, area, theme, " Move the leaf ", lines);
        }
        Mode::Summary { editor, .. } => {
            let rect = centered(area, area.width.saturating_sub(4), area.height.saturating_sub(4));
            draw_editor(
                frame,
                rect,
                theme,
                " Branch summary ",
                editor,
                "ctrl+s save and move the leaf · esc back",
            );
            if let Some(note) = &state.summary_note {
                let at = Rect::new(rect.x + 1, rect.y, rect.width.saturating_sub(2), 1.min(rect.height));
                let text = take_cols(&format!(" Branch summary · {} ", sanitize(note)), at.width as usize)
                    .to_string();
                frame.render_widget(Paragraph::new(Line::styled(text, theme.error)), at);
            }
        }
        Mode::Summarizing { frame: tick, .. } => {
            let spinner = SPINNER[*tick % SPINNER.len()];
            let text =
                format!("{spinner} Summarizing with `{}` … (esc to cancel)", sanitize(state.summarizer()));
            draw_box(frame, area, theme, " Summarize ", vec![Line::styled(text, theme.accent)]);
        }
        Mode::Prompt { editor } => {
            let rect = centered(area, area.width.saturating_sub(4), (area.height / 2).max(6));
            let hint = "enter resume pi with this message · alt+enter new line · esc don't send";
            draw_editor(frame, rect, theme, " Message to re-send ", editor, hint);
        }
        Mode::Confirm(confirm) => {
            let mut lines: Vec<Line> = confirm.lines.iter().map(|l| Line::raw(l.clone())).collect();
            lines.push(Line::default());
            lines.push(Line::styled("y / enter: yes · n / esc: no", theme.dim));
            draw_box(frame, area, theme, " Confirm ", lines);
        }
    }
}

fn draw_box(frame: &mut Frame, area: Rect, theme: &Theme, title: &str, lines: Vec<Line>) {
    let widest = lines.iter().map(Line::width).max().unwrap_or(0) as u16;
    let rect = centered(area, widest + 4, lines.len() as u16 + 2);
    let block = Block::bordered().border_style(theme.border_accent).title(title.to_string());
    frame.render_widget(Clear, rect);
    frame.render_widget(Paragraph::new(lines).block(block), rect);
}

/// A one-line input in a box at the bottom of the view.
fn draw_input(frame: &mut Frame, area: Rect, theme: &Theme, title: &str, editor: &Editor, hint: &str) {
    let rect = Rect::new(area.x, area.bottom().saturating_sub(4), area.width, 4.min(area.height));
    draw_editor(frame, rect, theme, title, editor, hint);
}

/// An editor in a bordered box: its rows wrapped to the box, scrolled so that the cursor row
/// shows, with the cursor placed. The box's size goes to the editor for its keys.
fn draw_editor(frame: &mut Frame, rect: Rect, theme: &Theme, title: &str, editor: &Editor, hint: &str) {
    let block = Block::bordered()
        .border_style(theme.border_accent)
        .title(title.to_string())
        .title_bottom(Line::styled(format!(" {hint} "), theme.dim));
    let inner = block.inner(rect);
    frame.render_widget(Clear, rect);
    frame.render_widget(block, rect);
    if inner.height == 0 || inner.width == 0 {
        return;
    }
    editor.set_area(inner.width, inner.height);
    let view = editor.view(inner.width, inner.height);
    let lines: Vec<Line> = view.rows.into_iter().map(Line::raw).collect();
    frame.render_widget(Paragraph::new(lines), inner);
    let (x, y) = view.cursor;
    frame.set_cursor_position(Position::new(inner.x + x, inner.y + y));
}

fn centered(area: Rect, w: u16, h: u16) -> Rect {
    let w = w.min(area.width);
    let h = h.min(area.height);
    Rect::new(area.x + (area.width - w) / 2, area.y + (area.height - h) / 2, w, h)
}

#[cfg(test)]
mod tests {
    use super::{max_hint_lines, short_key, wrap_hints};

    fn items(texts: &[&str]) -> Vec<String> {
        texts.iter().map(|t| t.to_string()).collect()
    }

    #[test]
    fn hints_wrap_between_whole_items() {
        let hints = items(&["↑/↓ move", "←/→ page", "^x copy", "f1 help"]);
        assert_eq!(wrap_hints(&hints, 80, 3), [" ↑/↓ move · ←/→ page · ^x copy · f1 help"]);
        assert_eq!(wrap_hints(&hints, 22, 3), [" ↑/↓ move · ←/→ page", " ^x copy · f1 help"]);
    }

    #[test]
    fn hints_that_do_not_fit_give_way_to_the_help_key() {
        let hints = items(&["↑/↓ move", "←/→ page", "^x copy", "shift+l label", "f1 help"]);
        assert_eq!(wrap_hints(&hints, 22, 1), [" ↑/↓ move · f1 help"]);
        assert_eq!(wrap_hints(&hints, 22, 2), [" ↑/↓ move · ←/→ page", " ^x copy · f1 help"]);
    }

    #[test]
    fn an_item_wider_than_the_screen_is_cut_at_its_edge() {
        let hints = items(&["shift+ctrl+o cycle", "f1 help"]);
        assert_eq!(wrap_hints(&hints, 8, 1), [" shift+c"]);
    }

    #[test]
    fn short_screens_give_one_line_to_help_tall_ones_three() {
        assert_eq!([15, 16, 24, 40].map(max_hint_lines), [1, 2, 3, 3]);
    }

    #[test]
    fn hint_keys_are_short() {
        for (key, shown) in [
            ("ctrl+x", "^x"),
            ("ctrl+left", "^←"),
            ("alt+right", "alt+→"),
            ("shift+ctrl+o", "shift+^o"),
            ("shift+l", "shift+l"),
            ("escape", "esc"),
            ("pageUp", "pgup"),
            ("shift+pageDown", "shift+pgdn"),
            ("ctrl++", "^+"),
            ("+", "+"),
            ("/", "/"),
            ("enter", "enter"),
        ] {
            assert_eq!(short_key(key), shown, "{key}");
        }
    }
}
